//! The errors of the full-text index, and the guard that turns tantivy's panics into them.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use tantivy::TantivyError;

use crate::{Error, Result};

/// What every index error tells the user to do.
pub(super) const REBUILD: &str =
    "the store is intact: rebuild the full-text index from it with `reindex` (or `repair`)";

/// Runs `f`, turning a panic into an [`Error::Index`]: tantivy trusts its files and panics on
/// some kinds of damage (a garbage segment file overflows an offset computation) instead of
/// returning an error. Nothing is shared across the unwind but the reader, whose searcher is
/// swapped atomically, so the handle stays usable.
pub(crate) fn guarded<T>(dir: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let detail = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Err(Error::index(
            format!("the full-text index in {} is damaged (tantivy: {detail})", dir.display()),
            None,
            REBUILD,
        ))
    })
}

/// How [`damaged`] says an index has another memcore version's schema (an upgrade, not
/// damage).
pub(crate) const OUTDATED_SCHEMA: &str = "was made with another schema (another memcore version)";

/// An [`Error::Index`] for an index that cannot be read: rebuild it.
pub(super) fn damaged(dir: &Path, e: TantivyError) -> Error {
    let what = match &e {
        TantivyError::SchemaError(_) => OUTDATED_SCHEMA,
        TantivyError::IncompatibleIndex(_) => "was made by an incompatible tantivy version",
        _ => "is damaged or unreadable",
    };
    Error::index(
        format!("the full-text index in {} {what}: {e}", dir.display()),
        Some(Box::new(e)),
        REBUILD,
    )
}

/// An [`Error::Index`] for an operation that failed.
pub(super) fn failed(doing: &str, e: TantivyError) -> Error {
    Error::index(
        format!("{doing} failed: {e}"),
        Some(Box::new(e)),
        format!("retry; if it keeps failing, {REBUILD}"),
    )
}
