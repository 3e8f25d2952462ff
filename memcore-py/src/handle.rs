//! `Memcore`, the handle over `Arc<memcore::Memcore>`, and `open`, the way to get one.
//!
//! Every method follows one pattern: extract and check the arguments with the GIL held,
//! take a clone of the `Arc` (so `close` on another thread never pulls the store out from
//! under a running call), run the core call through [`run`] (GIL released, panics caught,
//! errors mapped), then convert the result, whose type lives in its own module (`search`:
//! `SearchResults`; `index`: `VerifyReport`, `RepairReport`, `SyncReport`; `git`:
//! `Hydrated`). `reindex` is the one call that runs Python code while detached: its progress
//! callback, see [`ProgressCallback`].

use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};

use memcore::{Backend, ListOptions, MAX_LIMIT, MemoryUpdate, Query, Scope, SearchMode, Status};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{
    AwareTime, Filters, Strings, choice, count_arg, metadata_arg, py_repr, reference,
};
use crate::errors::{invalid, run, to_pyerr};
use crate::git::{PyHydrated, parse_level};
use crate::history::{PyTrashEntry, PyVersion};
use crate::index::{ProgressCallback, PyRepairReport, PySyncReport, PyVerifyReport};
use crate::listing::PyListing;
use crate::memory::PyMemory;
use crate::put_args::{self, parse_status};
use crate::search::PySearchResults;

/// An open memory store. Thread-safe: share one handle between threads. Use it as a
/// context manager, or call `close()`; a closed handle raises `ValidationError`.
#[pyclass(frozen, module = "memcore", name = "Memcore")]
pub(crate) struct PyMemcore {
    /// `None` once closed.
    core: RwLock<Option<Arc<memcore::Memcore>>>,
    root: PathBuf,
    config_file: Option<PathBuf>,
}

impl PyMemcore {
    /// The core handle, or the closed-handle error.
    fn core(&self, py: Python<'_>) -> PyResult<Arc<memcore::Memcore>> {
        self.core.read().unwrap_or_else(PoisonError::into_inner).clone().ok_or_else(|| {
            invalid(
                py,
                format!("the store {} is closed", self.root.display()),
                "open it again with memcore.open(...) (a `with` block closes on exit)",
            )
        })
    }

    /// `call(core, reference, rev)`: `get_version` or `restore_version`, which take and
    /// return the same.
    fn at_rev(
        &self,
        py: Python<'_>,
        id: &str,
        collection: Option<&str>,
        rev: RevArg,
        call: fn(&memcore::Memcore, &str, &str) -> memcore::Result<memcore::Memory>,
    ) -> PyResult<PyMemory> {
        let reference = reference(py, id, collection)?;
        let core = self.core(py)?;
        run(py, move || call(&core, &reference, &rev.0)).map(PyMemory::new)
    }
}

#[pymethods]
impl PyMemcore {
    /// The store's root directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.root.clone()
    }

    /// The config file that placed the store, if any.
    #[getter]
    fn config_file(&self) -> Option<PathBuf> {
        self.config_file.clone()
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.core.read().unwrap_or_else(PoisonError::into_inner).is_none()
    }

    /// Releases the store. Calls already running finish; later calls raise. Idempotent.
    fn close(&self) {
        self.core.write().unwrap_or_else(PoisonError::into_inner).take();
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        slf.core(slf.py())?;
        Ok(slf)
    }

    #[pyo3(signature = (exc_type, exc_value, traceback, /))]
    fn __exit__(
        &self,
        exc_type: &Bound<'_, PyAny>,
        exc_value: &Bound<'_, PyAny>,
        traceback: &Bound<'_, PyAny>,
    ) -> bool {
        let _ = (exc_type, exc_value, traceback);
        self.close();
        false
    }

    /// Stores a memory and returns it as stored. The id comes from `id`, else the title,
    /// else the first `# heading`, else a content hash. An existing memory with the same id
    /// in the same collection is replaced (version + 1), or with `create_only=True` is a
    /// `ConflictError`.
    #[pyo3(
        signature = (*args, **kwargs),
        // The arguments are parsed by `put_args::put_fields`, which `put_many` shares.
        text_signature = "($self, content, *, id=None, collection=None, title=None, \
            summary=None, type=None, status=None, tags=(), category=None, context=None, \
            related_to=(), project=None, priority=None, created_by=None, importance=None, \
            metadata=None, created_at=None, create_only=False)"
    )]
    fn put(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyMemory> {
        let (new, mode) = put_args::parse(args, kwargs)?;
        let core = self.core(py)?;
        run(py, move || core.put_with(new, mode)).map(PyMemory::new)
    }

    /// Stores several memories at once, embedding and indexing them in batches (much faster
    /// than one `put` each). Each item is a str (the content) or a mapping of `put`'s keyword
    /// arguments (`content` required; `create_only` is not supported). Every item is checked
    /// before anything is written; if storing one fails, the error is raised and the items
    /// before it stay stored. Returns the memories as stored, in order.
    fn put_many(&self, py: Python<'_>, items: &Bound<'_, PyAny>) -> PyResult<Vec<PyMemory>> {
        let memories = put_args::parse_many(items)?;
        let core = self.core(py)?;
        let stored = run(py, move || core.put_many(memories))?;
        Ok(stored.into_iter().map(PyMemory::new).collect())
    }

    /// The memory `id` (or `collection/id`), from `collection` when given.
    #[pyo3(signature = (id, *, collection=None))]
    fn get(&self, py: Python<'_>, id: &str, collection: Option<&str>) -> PyResult<PyMemory> {
        let reference = reference(py, id, collection)?;
        let core = self.core(py)?;
        run(py, move || core.get(&reference)).map(PyMemory::new)
    }

    /// Changes a memory and returns it as stored (version + 1). Arguments left `None` keep
    /// their value; an empty string clears an optional text field. `tags` replaces the tags,
    /// or with `merge_tags=True` adds to them. `metadata` keys are merged; a `None` value
    /// removes the key. A status change must follow the lifecycle (active -> resolved ->
    /// archived -> tombstone, archived/tombstone -> active).
    #[pyo3(signature = (
        id, *, collection=None, content=None, title=None, summary=None, r#type=None,
        status=None, tags=None, merge_tags=false, category=None, context=None,
        related_to=None, project=None, priority=None, importance=None, metadata=None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        py: Python<'_>,
        id: &str,
        collection: Option<&str>,
        content: Option<String>,
        title: Option<String>,
        summary: Option<String>,
        r#type: Option<String>,
        status: Option<&str>,
        tags: Option<Strings>,
        merge_tags: bool,
        category: Option<String>,
        context: Option<String>,
        related_to: Option<Strings>,
        project: Option<String>,
        priority: Option<String>,
        importance: Option<f64>,
        metadata: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyMemory> {
        let reference = reference(py, id, collection)?;
        let mut change = MemoryUpdate::new();
        change.content = content;
        change.title = title;
        change.summary = summary;
        change.kind = r#type;
        change.status = parse_status(py, status)?;
        change.tags = tags.map(|t| t.0);
        change.merge_tags = merge_tags;
        change.category = category;
        change.context = context;
        change.related_to = related_to.map(|r| r.0);
        change.project = project;
        change.priority = priority;
        change.importance = importance;
        change.metadata = metadata_arg(metadata)?;
        let core = self.core(py)?;
        run(py, move || core.update(&reference, change)).map(PyMemory::new)
    }

    /// Moves a memory to the trash; `restore` brings it back.
    #[pyo3(signature = (id, *, collection=None))]
    fn delete(&self, py: Python<'_>, id: &str, collection: Option<&str>) -> PyResult<PyTrashEntry> {
        let reference = reference(py, id, collection)?;
        let core = self.core(py)?;
        run(py, move || core.delete(&reference)).map(PyTrashEntry::new)
    }

    /// Brings the most recently deleted memory `id` back from the trash.
    #[pyo3(signature = (id, *, collection=None))]
    fn restore(&self, py: Python<'_>, id: &str, collection: Option<&str>) -> PyResult<PyMemory> {
        let reference = reference(py, id, collection)?;
        let core = self.core(py)?;
        run(py, move || core.restore(&reference)).map(PyMemory::new)
    }

    /// The memories matching every filter (`"key=value"` or `"key=v1,v2"` strings, or a dict
    /// `{key: value_or_values}`), sorted by collection then id, as a lazy `Listing`.
    #[pyo3(
        signature = (*, collection=None, filters=Filters::default(), limit=None, offset=0),
        text_signature = "($self, *, collection=None, filters=(), limit=None, offset=0)"
    )]
    fn list(
        &self,
        py: Python<'_>,
        collection: Option<String>,
        filters: Filters,
        limit: Option<i64>,
        offset: i64,
    ) -> PyResult<PyListing> {
        let mut options = ListOptions::new();
        options.collection = collection;
        options.filters = filters.0;
        options.limit = limit.map(|l| count_arg(py, l, "limit")).transpose()?;
        options.offset = count_arg(py, offset, "offset")?;
        let core = self.core(py)?;
        let limit = options.limit;
        let mut listing = run(py, move || core.list(&options))?;
        // The core returns one memory for `limit=0`; hold it to the limit here.
        if let Some(limit) = limit {
            listing.memories.truncate(limit);
        }
        PyListing::new(py, listing)
    }

    /// The store's collections, sorted by name.
    fn collections(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let core = self.core(py)?;
        let collections = run(py, move || core.collections())?;
        Ok(collections.iter().map(ToString::to_string).collect())
    }

    /// The history of a memory, oldest first, the current version last.
    #[pyo3(signature = (id, *, collection=None))]
    fn versions(
        &self,
        py: Python<'_>,
        id: &str,
        collection: Option<&str>,
    ) -> PyResult<Vec<PyVersion>> {
        let reference = reference(py, id, collection)?;
        let core = self.core(py)?;
        let versions = run(py, move || core.versions(&reference))?;
        Ok(versions.into_iter().map(PyVersion::new).collect())
    }

    /// The memory as it was at `rev`: a `Version.rev` (an int is taken as its text); in a
    /// store inside a git work tree any git revision (`"HEAD~2"`, a tag, a short commit id);
    /// `"current"` for the memory as it is now.
    #[pyo3(signature = (id, rev, *, collection=None))]
    fn get_version(
        &self,
        py: Python<'_>,
        id: &str,
        rev: RevArg,
        collection: Option<&str>,
    ) -> PyResult<PyMemory> {
        self.at_rev(py, id, collection, rev, memcore::Memcore::get_version)
    }

    /// A unified diff of the memory's file from revision `from_rev` to `to_rev` (each as
    /// for `get_version`; `to_rev` defaults to `"current"`, the memory as it is now). Empty
    /// when they do not differ. The same for git and built-in history.
    #[pyo3(
        signature = (id, from_rev, to_rev=RevArg::current(), *, collection=None),
        text_signature = "($self, id, from_rev, to_rev='current', *, collection=None)"
    )]
    fn diff(
        &self,
        py: Python<'_>,
        id: &str,
        from_rev: RevArg,
        to_rev: RevArg,
        collection: Option<&str>,
    ) -> PyResult<String> {
        let reference = reference(py, id, collection)?;
        let (from, to) = (from_rev.0, to_rev.0);
        let core = self.core(py)?;
        run(py, move || core.diff(&reference, &from, &to))
    }

    /// Writes the memory back as it was at `rev` (as for `get_version`) and returns it as
    /// stored: a new version, so nothing is lost. A store inside a git work tree with
    /// `git_autocommit: true` in its config commits it.
    #[pyo3(signature = (id, rev, *, collection=None))]
    fn restore_version(
        &self,
        py: Python<'_>,
        id: &str,
        rev: RevArg,
        collection: Option<&str>,
    ) -> PyResult<PyMemory> {
        self.at_rev(py, id, collection, rev, memcore::Memcore::restore_version)
    }

    /// The memory with as much git context as `level` asks for: `"summary"` the memory
    /// alone, `"full"` also its whole note and the commit it is attached to, `"files"` also
    /// the files that commit changed. Beyond `"summary"` only the git-notes backend has this
    /// context; a file store raises `UnsupportedError`.
    #[pyo3(signature = (id, level="summary", *, collection=None))]
    fn hydrate(
        &self,
        py: Python<'_>,
        id: &str,
        level: &str,
        collection: Option<&str>,
    ) -> PyResult<PyHydrated> {
        let reference = reference(py, id, collection)?;
        let level = parse_level(py, level)?;
        let core = self.core(py)?;
        run(py, move || core.hydrate(&reference, level)).map(PyHydrated::new)
    }

    /// Searches the memories for `text`, best first. `mode` is `"hybrid"` (full-text and
    /// semantic, fused by rank), `"semantic"` or `"text"`; without the embedding model,
    /// semantic and hybrid searches fall back to text and say so in `warnings`.
    ///
    /// Filters (all must hold; an empty list means no restriction): `collections`,
    /// `tags_any` (at least one), `tags_all`, `types`, `statuses` (default `None`: active and
    /// resolved; `()` means any status), created/updated times (`*_after` inclusive,
    /// `*_before` exclusive, aware datetimes), `filters` as for `list`, and `min_similarity`
    /// (cosine, -1 to 1, semantic matches only). `recency_weight` (0 to 1) boosts recently
    /// updated memories: the score is multiplied by
    /// `(1 - weight) + weight * 0.5 ** (age_days / recency_half_life_days)`.
    #[pyo3(
        signature = (
            text, *, mode="hybrid", limit=10, collections=Strings::default(),
            tags_any=Strings::default(), tags_all=Strings::default(), types=Strings::default(),
            statuses=None, created_after=None, created_before=None, updated_after=None,
            updated_before=None, filters=Filters::default(), min_similarity=None,
            recency_half_life_days=30.0, recency_weight=0.0,
        ),
        text_signature = "($self, text, *, mode='hybrid', limit=10, collections=(), \
            tags_any=(), tags_all=(), types=(), statuses=None, created_after=None, \
            created_before=None, updated_after=None, updated_before=None, filters=(), \
            min_similarity=None, recency_half_life_days=30.0, recency_weight=0.0)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        text: String,
        mode: &str,
        limit: i64,
        collections: Strings,
        tags_any: Strings,
        tags_all: Strings,
        types: Strings,
        statuses: Option<Strings>,
        created_after: Option<AwareTime>,
        created_before: Option<AwareTime>,
        updated_after: Option<AwareTime>,
        updated_before: Option<AwareTime>,
        filters: Filters,
        min_similarity: Option<f64>,
        recency_half_life_days: f64,
        recency_weight: f64,
    ) -> PyResult<PySearchResults> {
        let mode: SearchMode = mode.parse().map_err(|e| to_pyerr(py, &e))?;
        let mut query = Query::new(text)
            .mode(mode)
            .limit(search_limit(py, limit)?)
            .tags_any(tags_any.0)
            .tags_all(tags_all.0)
            .created_between(created_after.map(|t| t.0), created_before.map(|t| t.0))
            .updated_between(updated_after.map(|t| t.0), updated_before.map(|t| t.0))
            .recency(recency_half_life_days, recency_weight);
        for collection in collections.0 {
            query = query.collection(collection);
        }
        for kind in types.0 {
            query = query.kind(kind);
        }
        if let Some(statuses) = statuses {
            let statuses = statuses.0.iter().map(|s| s.parse::<Status>());
            query = query.statuses(
                statuses.collect::<memcore::Result<Vec<_>>>().map_err(|e| to_pyerr(py, &e))?,
            );
        }
        query.filters = filters.0;
        if let Some(min) = min_similarity {
            // Cosine similarities are f32 in the core; the query checks the range (NaN fails).
            query = query.min_similarity(min as f32);
        }
        let core = self.core(py)?;
        let results = run(py, move || core.search(&query))?;
        PySearchResults::new(py, results)
    }

    /// Rebuilds every index from the store and returns how many memories it indexed.
    /// `progress(done, total)`, if given, is called as memories are indexed (first with
    /// `done == 0`, last with `done == total`), on this thread, while the store's index lock
    /// is held: read from the store in it if you like, but do not write to it (a write would
    /// wait for the lock and fail with `ConflictError`). If `progress` raises, it is not
    /// called again, the rebuild still completes (an interrupted rebuild would leave the index
    /// half-empty), and the exception is raised when `reindex` returns.
    #[pyo3(signature = (progress=None))]
    fn reindex(&self, py: Python<'_>, progress: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        let mut callback = ProgressCallback::new(progress)?;
        let core = self.core(py)?;
        let outcome = run(py, || core.reindex(&mut |p| callback.report(p)));
        callback.finish(py, outcome)
    }

    /// Compares the store with every index (full-text, and vectors when semantic search is
    /// available) by key and content hash. Changes nothing; `repair` fixes what it finds.
    fn verify(&self, py: Python<'_>) -> PyResult<PyVerifyReport> {
        let core = self.core(py)?;
        let report = run(py, move || core.verify())?;
        PyVerifyReport::new(py, report)
    }

    /// Re-indexes the memories `verify` finds missing or stale (e.g. files edited by hand
    /// while no memcore process was running) and drops index entries without a memory.
    fn repair(&self, py: Python<'_>) -> PyResult<PyRepairReport> {
        let core = self.core(py)?;
        run(py, move || core.repair()).map(PyRepairReport::new)
    }

    /// Brings the indexes level with changes made behind memcore's back, such as git notes
    /// fetched from another clone (`git fetch origin 'refs/notes/*:refs/notes/*'`): only
    /// what changed since the last sync where the backend can tell (git notes; also run on
    /// open), else a full `repair`.
    fn sync(&self, py: Python<'_>) -> PyResult<PySyncReport> {
        let core = self.core(py)?;
        run(py, move || core.sync()).map(PySyncReport::new)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<memcore.Memcore path={}{}>",
            py_repr(py, &self.root.display().to_string())?,
            if self.closed() { " closed" } else { "" }
        ))
    }
}

/// The `limit` of `search` as `usize`; the core checks the range, this only the sign, with
/// the same message.
fn search_limit(py: Python<'_>, limit: i64) -> PyResult<usize> {
    usize::try_from(limit).map_err(|_| {
        invalid(
            py,
            format!("limit {limit} is outside 1..={MAX_LIMIT}"),
            &format!("ask for between 1 and {MAX_LIMIT} hits; page with list for more"),
        )
    })
}

/// A `rev` argument: a str, or an int written as text.
struct RevArg(String);

impl RevArg {
    /// The memory as it is now ([`memcore::Memcore::CURRENT`]).
    fn current() -> Self {
        Self(memcore::Memcore::CURRENT.to_owned())
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for RevArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(text) = obj.extract::<String>() {
            return Ok(Self(text));
        }
        if obj.is_instance_of::<pyo3::types::PyBool>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "rev must be a str or an int, not bool",
            ));
        }
        match obj.extract::<i64>() {
            Ok(n) => Ok(Self(n.to_string())),
            Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "rev must be a str or an int, not {}",
                crate::convert::type_name(&obj.to_owned())
            ))),
        }
    }
}

/// Opens (creating if needed) a memory store: the directory `path`, or, without a path, the
/// store `scope` names: `"auto"` (the project store found walking up from `start_dir`, by
/// default the working directory, else the global one), `"local"` (the project store; a
/// `NotFoundError` without one) or `"global"` (`$MEMCORE_HOME`, ...).
///
/// `backend` overrides the store's config (`backend:` in its `config.yaml` or
/// `.memcore.yaml`): `"file"` (markdown files) or `"git-notes"` (git notes in the repository
/// holding the directory, which needs a first commit before anything is stored).
#[pyfunction]
#[pyo3(signature = (path=None, *, scope="auto", start_dir=None, backend=None))]
fn open(
    py: Python<'_>,
    path: Option<PathBuf>,
    scope: &str,
    start_dir: Option<PathBuf>,
    backend: Option<&str>,
) -> PyResult<PyMemcore> {
    let scope = choice(
        py,
        "scope",
        scope,
        &[("auto", Scope::Auto), ("local", Scope::Local), ("global", Scope::Global)],
    )?;
    let backend = backend
        .map(|b| {
            choice(py, "backend", b, &[("file", Backend::File), ("git-notes", Backend::GitNotes)])
        })
        .transpose()?;
    if path.is_some() && (scope != Scope::Auto || start_dir.is_some()) {
        return Err(invalid(
            py,
            "pass either a path or a scope (with start_dir), not both",
            "memcore.open(path) opens that directory; memcore.open(scope=...) finds the store",
        ));
    }
    let core = run(py, move || {
        let mut builder = memcore::Memcore::builder().scope(scope);
        if let Some(path) = path {
            builder = builder.path(path);
        }
        if let Some(dir) = start_dir {
            builder = builder.start_dir(dir);
        }
        if let Some(backend) = backend {
            builder = builder.backend(backend);
        }
        builder.open()
    })?;
    let location = core.location();
    Ok(PyMemcore {
        root: location.root.clone(),
        config_file: location.config_file.clone(),
        core: RwLock::new(Some(Arc::new(core))),
    })
}

/// Adds `Memcore` and `open` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMemcore>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    Ok(())
}
