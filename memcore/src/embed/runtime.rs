//! Loading the ONNX Runtime shared library, once per process, without panicking.
//!
//! `ort` with `load-dynamic` keeps the library and its environment in process-wide state:
//! one library and one environment per process, for good. We load it from an explicit path
//! (relying on `ORT_DYLIB_PATH` inside `ort` would panic when the library is missing), keep
//! the environment for the life of the process, and turn every failure (and any panic inside
//! `ort`) into an [`Error::Embedding`]. A failed load is not remembered, so a later call with
//! a correct path can still succeed.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ort::environment::Environment;
use parking_lot::Mutex;

use super::FETCH_RECOVERY;
use crate::{Error, Result};

/// The loaded runtime: where it came from and the environment sessions are built in.
#[derive(Debug)]
pub(crate) struct Runtime {
    /// The library's canonical path.
    pub(crate) path: PathBuf,
    /// The process's ONNX Runtime environment.
    pub(crate) env: Environment,
}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();
static LOADING: Mutex<()> = Mutex::new(());

/// The process's ONNX Runtime, loading it from `library` on first use.
///
/// # Errors
///
/// [`Error::Embedding`] when the library cannot be loaded (missing, not a shared library,
/// not ONNX Runtime, too old), or when another library was already loaded in this process.
pub(crate) fn runtime(library: &Path) -> Result<&'static Runtime> {
    let canonical = std::fs::canonicalize(library).map_err(|e| {
        Error::embedding(
            format!("cannot open the ONNX Runtime library {}: {e}", library.display()),
            Some(Box::new(e)),
            FETCH_RECOVERY,
        )
    })?;
    if let Some(rt) = RUNTIME.get() {
        return same_library(rt, &canonical);
    }
    let _guard = LOADING.lock();
    if let Some(rt) = RUNTIME.get() {
        return same_library(rt, &canonical);
    }
    let env = load(&canonical)?;
    Ok(RUNTIME.get_or_init(|| Runtime { path: canonical, env }))
}

fn same_library(rt: &'static Runtime, wanted: &Path) -> Result<&'static Runtime> {
    if rt.path == wanted {
        return Ok(rt);
    }
    Err(Error::embedding(
        format!(
            "ONNX Runtime is already loaded in this process from {}; it cannot also be loaded \
             from {}",
            rt.path.display(),
            wanted.display()
        ),
        None,
        "use one ONNX Runtime library per process: give every embedder the same model \
         directory or set ORT_DYLIB_PATH",
    ))
}

fn load(library: &Path) -> Result<Environment> {
    let attempt = catch_unwind(AssertUnwindSafe(|| {
        ort::init_from(library)
            .map_err(|e| {
                Error::embedding(
                    format!("cannot load the ONNX Runtime library {}: {e}", library.display()),
                    Some(Box::new(e)),
                    "make sure the file is ONNX Runtime >= 1.31 for this platform: run \
                     `memcore model fetch` or `scripts/fetch-models` (or set MEMCORE_MODEL_DIR / \
                     ORT_DYLIB_PATH)",
                )
            })?
            .with_name("memcore")
            .with_telemetry(false)
            .build()
            .map_err(|e| {
                Error::embedding(
                    format!(
                        "cannot create the ONNX Runtime environment from {}: {e}",
                        library.display()
                    ),
                    Some(Box::new(e)),
                    FETCH_RECOVERY,
                )
            })
    }));
    attempt.unwrap_or_else(|panic| {
        Err(Error::embedding(
            format!(
                "loading the ONNX Runtime library {} failed: {}",
                library.display(),
                panic_message(panic.as_ref())
            ),
            None,
            FETCH_RECOVERY,
        ))
    })
}

/// The text of a caught panic, when it has one.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
