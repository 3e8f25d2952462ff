//! `Memcore`, the handle over `Arc<memcore::Memcore>`; `open`, the way to get one; and
//! `operations`, the list of what `Memcore.call` runs.
//!
//! Every method is one operation of the core's [`memcore::api`]: its keyword arguments become
//! the operation's request record (converted generically, checked by the core in the one
//! place every binding shares), the call runs with the GIL released ([`run`]), and the result
//! record comes back as a record object ([`crate::records`]). A method only says how its
//! positional arguments fill the record; a field added to a record in the core is a keyword
//! argument here with no binding code. `Memcore.call` reaches every operation by name.

use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};

use memcore::api::OPERATIONS;
use memcore::session::{SessionComposeRequest, SessionCompressRequest, Summarizer};
use memcore::{Backend, MemoryRef, Scope};
use pyo3::exceptions::{PyRuntimeWarning, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping, PyString};
use serde_json::{Map, Value, json};

use crate::convert::{choice, json_to_py, kwargs_json, py_repr, py_to_json, type_name};
use crate::embedder::py_embedder;
use crate::errors::{invalid, run, to_pyerr, unfit};
use crate::progress::ProgressCallback;
use crate::records::{self, from_result, kind_index, record};
use crate::summarizer::py_summarizer;

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

    /// Runs the session operation `name` (one that may summarise) on `fields` and the
    /// keyword `options`, returning its result as the record class `class`. `summarizer` is
    /// a choice (`"auto"`, ...) that goes into the request, or a callable: then the request
    /// runs through `with`, with the callable as the summariser for this call only. Either
    /// way a callable's exception becomes the cause of the `CallbackError`.
    #[allow(clippy::too_many_arguments)]
    fn call_summarizing<Q, R>(
        &self,
        py: Python<'_>,
        name: &'static str,
        mut fields: Value,
        summarizer: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
        class: &str,
        with: impl FnOnce(&memcore::Memcore, &Q, Arc<dyn Summarizer>) -> memcore::Result<R> + Send,
    ) -> PyResult<Py<PyAny>>
    where
        Q: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        R: serde::Serialize + Send,
    {
        let callable = summarizer_arg(summarizer, &mut fields)?;
        let request = request(options, fields)?;
        let Some(summarizer) = callable else {
            return self.call_record(py, name, request, class);
        };
        let core = self.core(py)?;
        let parsed: Q = memcore::api::parse_request(name, request).map_err(|e| to_pyerr(py, &e))?;
        let record = run(py, move || with(&core, &parsed, summarizer))?;
        from_result(py, class, &record)
    }

    /// Runs the operation `name` on `request` (GIL released) and returns its result record
    /// as JSON.
    fn call_json(&self, py: Python<'_>, name: &'static str, request: Value) -> PyResult<Value> {
        let core = self.core(py)?;
        run(py, move || core.call(name, request))
    }

    /// Runs `name` and returns its result as the record class `class`.
    fn call_record(
        &self,
        py: Python<'_>,
        name: &'static str,
        request: Value,
        class: &str,
    ) -> PyResult<Py<PyAny>> {
        let result = self.call_json(py, name, request)?;
        Ok(record(py, kind_index(class)?, result)?.unbind())
    }

    /// Runs `name` on the memory `id` (in `collection`) with the other request `fields` (a
    /// JSON object; null fields count as left out) and returns its result as the record class
    /// `class`.
    fn call_on(
        &self,
        py: Python<'_>,
        name: &'static str,
        (id, collection): (&str, Option<&str>),
        fields: Value,
        class: &str,
    ) -> PyResult<Py<PyAny>> {
        let mut request = match fields {
            Value::Object(fields) => fields,
            _ => Map::new(),
        };
        request.insert("ref".into(), reference(py, id, collection)?);
        self.call_record(py, name, Value::Object(request), class)
    }

    /// Runs `name` and returns the records of `class` listed under `field` of its result.
    fn call_records(
        &self,
        py: Python<'_>,
        name: &'static str,
        request: Value,
        field: &str,
        class: &str,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let mut result = self.call_json(py, name, request)?;
        let Value::Array(items) = result[field].take() else { return Ok(Vec::new()) };
        let kind = kind_index(class)?;
        items.into_iter().map(|item| Ok(record(py, kind, item)?.unbind())).collect()
    }
}

/// The reference a method's `id` and `collection` arguments name, as text.
fn reference(py: Python<'_>, id: &str, collection: Option<&str>) -> PyResult<Value> {
    let reference = MemoryRef::parse_parts(id, collection).map_err(|e| to_pyerr(py, &e))?;
    Ok(Value::String(reference.to_string()))
}

/// The source fields of a keepit request (`ref` or `text`) from a method's `id`,
/// `collection` and `text` arguments; the core checks that exactly one is given.
fn keepit_source(
    py: Python<'_>,
    id: Option<&str>,
    collection: Option<&str>,
    text: Option<&Bound<'_, PyAny>>,
) -> PyResult<Map<String, Value>> {
    let mut request = Map::new();
    match (id, collection) {
        (Some(id), collection) => {
            request.insert("ref".into(), reference(py, id, collection)?);
        }
        (None, Some(_)) => {
            return Err(invalid(
                py,
                "a collection was given without the id of a memory in it",
                "pass the memory's id too (or `collection/id` as the id)",
            ));
        }
        (None, None) => {}
    }
    if let Some(text) = text.filter(|t| !t.is_none()) {
        request.insert("text".into(), py_to_json(text, "text", 1)?);
    }
    Ok(request)
}

/// The `mode` of a put: `create_only` or the default upsert.
fn put_mode(create_only: bool) -> &'static str {
    if create_only { "create_only" } else { "upsert" }
}

/// The keyword arguments as a request record, with `fields` set on top.
fn request(kwargs: Option<&Bound<'_, PyDict>>, fields: Value) -> PyResult<Value> {
    let mut request = kwargs_json(kwargs)?;
    if let Value::Object(fields) = fields {
        request.extend(fields.into_iter().filter(|(_, v)| !v.is_null()));
    }
    Ok(Value::Object(request))
}

/// One path (`str` or `os.PathLike`) or an iterable of them, as the texts records take.
fn path_list(paths: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(path) = paths.extract::<PathBuf>() {
        return Ok(vec![path_text(&path)?]);
    }
    let mut texts = Vec::new();
    for item in paths.try_iter()? {
        texts.push(path_text(&item?.extract::<PathBuf>()?)?);
    }
    Ok(texts)
}

/// A path as text, or a `ValueError` for one that is not UTF-8.
fn path_text(path: &std::path::Path) -> PyResult<String> {
    path.to_str().map(str::to_owned).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!("path {} is not UTF-8", path.display()))
    })
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

    /// Runs any operation by name (`memcore.operations()` lists them) on a request record
    /// given as a mapping and/or keyword arguments, and returns its result: a record object
    /// where the result is one, else plain data holding records. The named methods are
    /// shortcuts to the same calls.
    #[pyo3(signature = (operation, request=None, /, **fields))]
    fn call(
        &self,
        py: Python<'_>,
        operation: &str,
        request: Option<&Bound<'_, PyAny>>,
        fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let entry = memcore::api::operation(operation).map_err(|e| to_pyerr(py, &e))?;
        let mut body = Map::new();
        if let Some(request) = request.filter(|r| !r.is_none()) {
            match py_to_json(request, "request", 1)? {
                Value::Object(map) => body = map,
                _ => {
                    return Err(unfit(
                        py,
                        format!("the request must be a mapping, not {}", type_name(request)),
                        "pass the request record as a dict, or its fields as keyword arguments",
                    ));
                }
            }
        }
        body.extend(kwargs_json(fields)?);
        let core = self.core(py)?;
        let result = run(py, move || entry.call(&core, Value::Object(body)))?;
        records::from_schema(py, &entry.result_schema(), result)
    }

    /// Stores a memory and returns it as stored. Keyword arguments are the memory's fields
    /// (`id`, `collection`, `title`, `tags`, `type`, `metadata`, `created_at`, ...). The id
    /// comes from `id`, else the title, else the first `# heading`, else a content hash. An
    /// existing memory with the same id in the same collection is replaced (version + 1), or
    /// with `create_only=True` is a `ConflictError`. `commit` attaches it to a commit (git
    /// notes). `vector` (a list of floats or a NumPy array, from the store's embedder: the
    /// same dimension) is indexed instead of embedding the memory; it is not stored with it,
    /// so a later update of the memory or a rebuild of the indexes embeds it again.
    #[pyo3(signature = (content, *, create_only=false, commit=None, **fields))]
    fn put(
        &self,
        py: Python<'_>,
        content: &Bound<'_, PyAny>,
        create_only: bool,
        commit: Option<String>,
        fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut memory = kwargs_json(fields)?;
        memory.insert("content".into(), py_to_json(content, "content", 1)?);
        let request =
            json!({"memories": [memory], "mode": put_mode(create_only), "commit": commit});
        let mut stored = self.call_records(py, "put", request, "memories", "Memory")?;
        stored.pop().ok_or_else(|| invalid(py, "put stored nothing", "report this as a bug"))
    }

    /// Stores several memories at once, embedding and indexing them in batches (much faster
    /// than one `put` each). Each item is a str (the content) or a mapping of a memory's
    /// fields (`content` required). Every item is checked before anything is written.
    /// Returns the memories as stored, in order. More than 4,096 items are written 4,096 at
    /// a time (an error after the first slice leaves the slices before it stored; putting
    /// them again is safe), unless `create_only` or `commit` is given or the store is
    /// PostgreSQL (one transaction).
    #[pyo3(signature = (items, *, create_only=false, commit=None))]
    fn put_many(
        &self,
        py: Python<'_>,
        items: &Bound<'_, PyAny>,
        create_only: bool,
        commit: Option<String>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        if items.is_instance_of::<PyString>() || items.cast::<PyMapping>().is_ok() {
            return Err(unfit(
                py,
                format!(
                    "put_many takes an iterable of items (str or mapping), not a single {}",
                    type_name(items)
                ),
                "wrap the item in a list",
            ));
        }
        let iter = items.try_iter().map_err(|_| {
            unfit(
                py,
                format!("put_many takes an iterable of str or mappings, not {}", type_name(items)),
                "pass a list of items: str (the content) or dicts of a memory's fields",
            )
        })?;
        let mut memories = Vec::new();
        for (i, item) in iter.enumerate() {
            let item = item?;
            let memory = if item.is_instance_of::<PyString>() {
                json!({ "content": py_to_json(&item, "content", 1)? })
            } else if item.cast::<PyMapping>().is_ok() {
                py_to_json(&item, &format!("item {i}"), 1)?
            } else {
                return Err(unfit(
                    py,
                    format!(
                        "put_many item {i}: expected a str (the content) or a mapping of a \
                         memory's fields, not {}",
                        type_name(&item)
                    ),
                    "pass a list of items: str (the content) or dicts of a memory's fields",
                ));
            };
            memories.push(memory);
        }
        let request =
            json!({"memories": memories, "mode": put_mode(create_only), "commit": commit});
        self.call_records(py, "put", request, "memories", "Memory")
    }

    /// The memory `id` (or `collection/id`), from `collection` when given; at an earlier
    /// `version` when given (a `Version.rev`, a git revision, or `"current"`).
    #[pyo3(signature = (id, *, collection=None, version=None))]
    fn get(
        &self,
        py: Python<'_>,
        id: &str,
        collection: Option<&str>,
        version: Option<RevArg>,
    ) -> PyResult<Py<PyAny>> {
        let fields = json!({"version": version.map(|v| v.0)});
        self.call_on(py, "get", (id, collection), fields, "Memory")
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
    ) -> PyResult<Py<PyAny>> {
        self.get(py, id, collection, Some(rev))
    }

    /// Changes a memory and returns it as stored (version + 1). Keyword arguments are the
    /// change's fields: those left out (or `None`) keep their value, an empty string clears
    /// an optional text field; `tags` replaces the tags, or with `merge_tags=True` adds to
    /// them; `metadata` keys are merged, a `None` value removes the key. A status change must
    /// follow the lifecycle (as `transition`). `expected_version=n` applies the change only
    /// if the memory is still at version `n`, else raises `ConflictError` (read, decide, write
    /// back without losing another writer's change).
    #[pyo3(signature = (id, *, collection=None, **change))]
    fn update(
        &self,
        py: Python<'_>,
        id: &str,
        collection: Option<&str>,
        change: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let fields = json!({"change": kwargs_json(change)?});
        self.call_on(py, "update", (id, collection), fields, "Memory")
    }

    /// Moves a memory to another lifecycle `status` and returns it as stored (version + 1).
    /// The allowed moves: active to resolved, archived or tombstone; resolved to archived or
    /// tombstone; archived to active or tombstone; tombstone to active. Another move raises
    /// `ValidationError` whose `recovery` names the allowed targets. Archiving compresses
    /// long content into a short stub (its summary, else its start) that search still finds
    /// with `statuses=["archived"]`, keeping the original losslessly in the memory's
    /// metadata; moving back to `"active"` gives the original content back exactly.
    #[pyo3(signature = (id, status, *, collection=None))]
    fn transition(
        &self,
        py: Python<'_>,
        id: &str,
        status: &Bound<'_, PyAny>,
        collection: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let fields = json!({"status": py_to_json(status, "status", 1)?});
        self.call_on(py, "transition", (id, collection), fields, "Memory")
    }

    /// Moves a memory to the trash; `restore` brings it back.
    #[pyo3(signature = (id, *, collection=None))]
    fn delete(&self, py: Python<'_>, id: &str, collection: Option<&str>) -> PyResult<Py<PyAny>> {
        self.call_on(py, "delete", (id, collection), json!({}), "TrashEntry")
    }

    /// Brings the most recently deleted memory `id` back from the trash.
    #[pyo3(signature = (id, *, collection=None))]
    fn restore(&self, py: Python<'_>, id: &str, collection: Option<&str>) -> PyResult<Py<PyAny>> {
        self.call_on(py, "restore", (id, collection), json!({}), "Memory")
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
    ) -> PyResult<Py<PyAny>> {
        self.call_on(py, "restore", (id, collection), json!({"version": rev.0}), "Memory")
    }

    /// The memories matching the keyword arguments (`collection`, `filters`, `limit`,
    /// `offset`), sorted by collection then id, as a `Listing`. `filters` is one
    /// `"key=value"` string, a list of them, or a dict `{key: value | [values]}`.
    #[pyo3(signature = (**options))]
    fn list(&self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        self.call_record(py, "list", request(options, json!({}))?, "Listing")
    }

    /// The store's collections, sorted by name.
    fn collections(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let result = self.call_json(py, "collections", json!({}))?;
        Ok(serde_json::from_value(result["collections"].clone()).unwrap_or_default())
    }

    /// The history of a memory, oldest first, the current version last.
    #[pyo3(signature = (id, *, collection=None))]
    fn versions(
        &self,
        py: Python<'_>,
        id: &str,
        collection: Option<&str>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let request = json!({"ref": reference(py, id, collection)?});
        self.call_records(py, "versions", request, "versions", "Version")
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
        let request =
            json!({"ref": reference(py, id, collection)?, "from": from_rev.0, "to": to_rev.0});
        let result = self.call_json(py, "diff", request)?;
        Ok(result["diff"].as_str().unwrap_or_default().to_owned())
    }

    /// The memory with as much git context as `level` asks for: `"summary"` the memory
    /// alone, `"full"` also its whole note and the commit it is attached to, `"files"` also
    /// the files that commit changed. Beyond `"summary"` only the git-notes backend has
    /// this (`UnsupportedError` otherwise).
    #[pyo3(signature = (id, level="summary", *, collection=None))]
    fn hydrate(
        &self,
        py: Python<'_>,
        id: &str,
        level: &str,
        collection: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        self.call_on(py, "hydrate", (id, collection), json!({"level": level}), "Hydrated")
    }

    /// Searches the memories for `text`. Keyword arguments are the query's fields: `mode`
    /// (`"hybrid"`, `"semantic"` or `"text"`), `limit`, `collections`, `tags_any`,
    /// `tags_all`, `types`, `statuses`, `created_after`, `created_before`,
    /// `updated_after`, `updated_before` (aware datetimes or ISO 8601 text), `filters`,
    /// `min_similarity` and `recency` (`{"weight": 0.2}` multiplies each score by
    /// `0.8 + 0.2 * relevance`; relevance decays by the store's `decay:` config, or with
    /// `"half_life_days": 30`, and `"by_type": False` applies the half-life to every type).
    /// `linked_to` (a memory, `"ghost:src/server.py"` or a link target) searches only the
    /// memories linking there, each hit carrying those `links`; `expand_links=True` lets
    /// memories linked with the strongest hits join the results. `agent` searches one
    /// agent's view (the shared memories and those whose `agent` metadata names it),
    /// `shared=True` only the shared ones. `vector` (a list of floats or a NumPy array, from
    /// the store's embedder) is searched instead of embedding `text`.
    /// Archived and tombstoned memories are found only with `statuses` naming them. Without
    /// the embedding model, semantic and hybrid fall back to full text and say so in
    /// `warnings`.
    #[pyo3(signature = (text, **query))]
    fn search(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        query: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(query, json!({"text": py_to_json(text, "text", 1)?}))?;
        self.call_record(py, "search", request, "SearchResults")
    }

    /// What opening the store did to its indexes, as dicts (`kind`: `rebuilt` with
    /// `damaged`, `replayed`, `caught_up`, `synced`); empty when they were in order.
    fn opened_with(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let result = self.call_json(py, "opened", json!({}))?;
        json_to_py(py, &result["maintenance"]).map(Bound::unbind)
    }

    /// Counts the memories by collection and status.
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call_record(py, "stats", json!({}), "Stats")
    }

    /// Rebuilds every index from the store and says what it did, index by index.
    /// `progress(done, total)`, if given, is called as memories are indexed (first with
    /// `done == 0`, last with `done == total`), on this thread, while the store's index lock
    /// is held: read from the store in it if you like, but do not write to it (a write would
    /// wait for the lock and fail with `ConflictError`). If `progress` raises, it is not
    /// called again, the rebuild still completes (an interrupted rebuild would leave the index
    /// half-empty), and the exception is raised when `reindex` returns.
    #[pyo3(signature = (progress=None))]
    fn reindex(&self, py: Python<'_>, progress: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let mut callback = ProgressCallback::new(progress)?;
        let core = self.core(py)?;
        let outcome = run(py, || core.reindex(&mut |p| callback.report(p)));
        let report = callback.finish(py, outcome)?;
        from_result(py, "ReindexReport", &report)
    }

    /// Compares the store with every index (full text, and vectors when semantic search is
    /// available) by key and content hash. Changes nothing; `repair` fixes what it finds.
    fn verify(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call_record(py, "verify", json!({}), "VerifyReport")
    }

    /// Re-indexes the memories `verify` finds missing or stale (e.g. files edited by hand
    /// while no memcore process was running) and drops index entries without a memory.
    fn repair(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call_record(py, "repair", json!({}), "RepairReport")
    }

    /// Brings the indexes level with changes made behind memcore's back, such as git notes
    /// fetched from another clone (`git fetch origin 'refs/notes/*:refs/notes/*'`): only
    /// what changed since the last sync where the backend can tell (git notes; also run on
    /// open), else a full `repair`.
    fn sync(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call_record(py, "sync", json!({}), "SyncReport")
    }

    /// Merges the git notes another clone wrote, fetched to `refs/notes/<remote>/mem/*`
    /// (`git fetch origin '+refs/notes/mem/*:refs/notes/origin/mem/*'`), into this clone's, so
    /// that every memory of both sides is kept once, then indexes what came in. Returns a
    /// `NotesMergeReport`: per namespace how its ref moved, the other side's memories added
    /// or updated, their ids that moved, own ids renamed and conflicts (both sides changed a
    /// memory; the later change is kept). Git-notes stores only (`UnsupportedError`).
    fn notes_merge(&self, py: Python<'_>, remote: &str) -> PyResult<Py<PyAny>> {
        self.call_record(py, "notes_merge", json!({"remote": remote}), "NotesMergeReport")
    }

    /// Runs the automatic lifecycle and returns a `LifecycleReport` of what it did: archives
    /// active and resolved memories unchanged for `archive_after_days` or less relevant than
    /// `min_relevance` (never pinned ones: importance 1.0 or a `##keepit1.00##` marker),
    /// tombstones memories archived for `tombstone_after_days`, and moves tombstones older
    /// than `delete_after_days` to the trash. Keyword arguments: `dry_run` (only plan,
    /// change nothing; the plan equals the steps a real run takes), `now` (the time ages are
    /// judged at, an aware `datetime` or ISO 8601 text; the clock by default),
    /// `collections` (all by default), the thresholds above (the store's `lifecycle:`
    /// config by default) and `compress` (compress archived content; default on). Each step
    /// is a write of its own, so running again finishes an interrupted run; memories that
    /// could not be read or changed are listed in `errors`.
    #[pyo3(signature = (**options))]
    fn process_lifecycle(
        &self,
        py: Python<'_>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        self.call_record(py, "lifecycle", request(options, json!({}))?, "LifecycleReport")
    }

    /// The `##keepitX.XX##` markers of the memory `id`, or of `text` (give exactly one), in
    /// text order. A marker covers the text from its tag to the next tag or the end; its
    /// `start_char` and `end_char` index the Python str (`content[m.start_char:m.end_char]`),
    /// `start` and `end` its UTF-8 bytes. Tags inside markdown code are not markers; a
    /// malformed tag outside code (`##keepit.5##`) raises `ValidationError` naming it.
    #[pyo3(signature = (id=None, *, collection=None, text=None))]
    fn keepit_list(
        &self,
        py: Python<'_>,
        id: Option<&str>,
        collection: Option<&str>,
        text: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let request = keepit_source(py, id, collection, text)?;
        self.call_records(py, "keepit_list", Value::Object(request), "markers", "KeepitMarker")
    }

    /// Sets the weight of marker `index` (from 0, as `keepit_list` numbers them) of the
    /// memory `id` in place and returns the memory as stored (version + 1): its content
    /// differs only in that weight. The weight is clamped to 0.00..1.00 and rounded to two
    /// decimals; 1.00 pins the memory (the lifecycle never archives it).
    #[pyo3(signature = (id, index, weight, *, collection=None))]
    fn keepit_set(
        &self,
        py: Python<'_>,
        id: &str,
        index: &Bound<'_, PyAny>,
        weight: &Bound<'_, PyAny>,
        collection: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let fields = json!({
            "index": py_to_json(index, "index", 1)?,
            "weight": py_to_json(weight, "weight", 1)?,
        });
        self.call_on(py, "keepit_set", (id, collection), fields, "Memory")
    }

    /// Which keepit markers of the memory `id`, or of `text` (give exactly one), survive a
    /// compression at `ratio`:1 (30 for 30:1, at least 1) of a session 1 to `max_distance`
    /// (1 to 1000) sessions ago: a marker survives when its weight reaches
    /// `base + ratio / 100 * distance / max_distance`, where the base is 0.1, 0.3 or 0.5 for
    /// `aggressiveness` `"light"`, `"moderate"` or `"aggressive"` (by default the ratio's:
    /// below 6 light, below 16 moderate); a pinned marker (1.00) always survives.
    #[pyo3(
        signature = (
            id=None, *, ratio, collection=None, text=None, aggressiveness=None, max_distance=None
        ),
        text_signature = "($self, id=None, *, ratio, collection=None, text=None, \
                          aggressiveness=None, max_distance=10)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn keepit_preview(
        &self,
        py: Python<'_>,
        id: Option<&str>,
        ratio: &Bound<'_, PyAny>,
        collection: Option<&str>,
        text: Option<&Bound<'_, PyAny>>,
        aggressiveness: Option<&Bound<'_, PyAny>>,
        max_distance: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let mut request = keepit_source(py, id, collection, text)?;
        request.insert("ratio".into(), py_to_json(ratio, "ratio", 1)?);
        for (name, value) in [("aggressiveness", aggressiveness), ("max_distance", max_distance)] {
            if let Some(value) = value.filter(|v| !v.is_none()) {
                request.insert(name.into(), py_to_json(value, name, 1)?);
            }
        }
        self.call_record(py, "keepit_preview", Value::Object(request), "KeepitPreview")
    }

    /// Decides what in `text` is worth remembering and returns a `CaptureDecision`: its
    /// `[remember]` / `[remember:<namespace>]` markers where it has them, else the seed's
    /// signal phrases ("we decided to", "TIL", "blocked by", ...); each capture compared with
    /// the stored memories of its namespace (`check_novelty`, default on) and judged `auto`,
    /// `suggest` or `skip`. Keyword arguments: `namespace` (put every capture there),
    /// `summary` (capture the whole text as one memory with this summary; needs
    /// `namespace`), `tags`, `created_by`, `check_novelty`, `apply` (store the `auto`
    /// captures; their refs are in `stored`) and `apply_suggested` (with `apply`, the
    /// `suggest` ones too). Nothing is stored unless asked; a bad marker or namespace raises
    /// `ValidationError` saying what to write instead.
    #[pyo3(signature = (text, **options))]
    fn capture(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"text": py_to_json(text, "text", 1)?}))?;
        self.call_record(py, "capture", request, "CaptureDecision")
    }

    /// The `[[links]]` of the memory `id`, in content order, as `LinkEdge` records: the node
    /// each reaches (a memory's `collection/id`, else `ghost:<target>`), its edge type
    /// (`refactors`, `plans`, `debugs`, `mentions`, `related_to`), label and anchor context.
    #[pyo3(signature = (id, *, collection=None))]
    fn links(
        &self,
        py: Python<'_>,
        id: &str,
        collection: Option<&str>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let request = json!({"ref": reference(py, id, collection)?});
        self.call_records(py, "links", request, "links", "LinkEdge")
    }

    /// Every link into `target`: a memory (`collection/id` or its id), a ghost node
    /// (`"ghost:src/server.py"`) or a target as links write it; `LinkEdge` records by source,
    /// then position. Nothing linking there is an empty list.
    fn backlinks(&self, py: Python<'_>, target: &str) -> PyResult<Vec<Py<PyAny>>> {
        self.call_records(py, "backlinks", json!({"target": target}), "links", "LinkEdge")
    }

    /// Adds `text` to the end of the memory `id`, after a blank line, and returns it as
    /// stored (version + 1; its links re-indexed). Blank text raises `ValidationError`.
    #[pyo3(signature = (id, text, *, collection=None))]
    fn append(
        &self,
        py: Python<'_>,
        id: &str,
        text: &Bound<'_, PyAny>,
        collection: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let fields = json!({"text": py_to_json(text, "text", 2)?});
        self.call_on(py, "append", (id, collection), fields, "Memory")
    }

    /// Merges the memories `refs` into a new memory `into` (an id, in the first source's
    /// collection, or `collection/id`): `summary`, then each source under a `## <title>`
    /// heading; tags united; links to the sources re-pointed; the sources moved to the
    /// trash. Returns a `MergeResult`. All or nothing: an interrupted merge is finished the
    /// next time the store is opened.
    #[pyo3(signature = (refs, *, into, summary=None))]
    fn merge(
        &self,
        py: Python<'_>,
        refs: &Bound<'_, PyAny>,
        into: &str,
        summary: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let request =
            json!({"refs": py_to_json(refs, "refs", 1)?, "into": into, "summary": summary});
        self.call_record(py, "merge", request, "MergeResult")
    }

    /// The block of context for a prompt: working memory (pinned memories, active blockers,
    /// recent decisions) and what `query` finds, within a token budget, each memory labelled
    /// `[M1]`, `[M2]`, ... Returns a `ComposedContext` (`.text`, `.tokens`, `.items`, and
    /// `.manifest`: every candidate, included or not, and why). Options as keywords:
    /// `budget` (tokens) or `tier` (`"simple"`, `"medium"`, `"complex"`, `"full"`), `mode`,
    /// `format` (`"xml"`, `"markdown"`), `tokenizer` (`"estimate"`, `"cl100k"`),
    /// `blocker_collections`, `decision_collections`, `recent_decisions`,
    /// `no_working_memory`, `collections`, `search_mode`, `candidates`. A budget smaller than
    /// one item raises `ValidationError` naming the least that works.
    #[pyo3(signature = (query="", **options))]
    fn compose(
        &self,
        py: Python<'_>,
        query: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"query": query}))?;
        self.call_record(py, "compose", request, "ComposedContext")
    }

    /// Registers the conversation transcript at `path` (a Claude Code session `.jsonl`, or
    /// lines of `{"role", "content", "timestamp"}`) as a session and returns its
    /// `SessionRecord`: an immutable copy, tokens, messages, times, keepit markers, and the
    /// lines skipped with why. Options: `session_id`, `format`, `tokenizer`, `replace` (a
    /// changed transcript under the same id), `composed_from` (compositions it started from).
    #[pyo3(signature = (path, **options))]
    fn session_add(
        &self,
        py: Python<'_>,
        path: PathBuf,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"path": path.to_string_lossy()}))?;
        self.call_record(py, "session_add", request, "SessionRecord")
    }

    /// The registered sessions and compositions, as a `SessionListing`.
    fn session_list(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call_record(py, "session_list", json!({}), "SessionListing")
    }

    /// The session `session` with its keepit markers and versions (`SessionRecord`).
    fn session_show(&self, py: Python<'_>, session: &str) -> PyResult<Py<PyAny>> {
        self.call_record(py, "session_show", json!({"session": session}), "SessionRecord")
    }

    /// Compresses `session` into a new version and returns its `CompressionRecord`.
    /// `settings` is a dict (`mode`, `compaction_ratio`, `aggressiveness`, `tier_preset`,
    /// `custom_tiers`, `skip_first_messages`, `keepit_mode`, `session_distance`);
    /// `from_version` compresses a version further. `summarizer` is `"auto"` (the handle's,
    /// see `set_summarizer`, else extractive), `"extractive"`, `"callback"`, or a callable
    /// `summarize(request: dict) -> str` for this call. A callable that raises or returns
    /// something else raises `CallbackError` (its exception as the cause); nothing is
    /// written.
    #[pyo3(signature = (session, *, summarizer=None, **options))]
    fn session_compress(
        &self,
        py: Python<'_>,
        session: &str,
        summarizer: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let fields = json!({"session": session});
        let class = "CompressionRecord";
        self.call_summarizing(py, "session_compress", fields, summarizer, options, class, {
            |core, request: &SessionCompressRequest, s| core.session_compress_with(request, s)
        })
    }

    /// Composes sessions into one context (`composed/<name>/`) within `budget` tokens and
    /// returns its `CompositionRecord`. `components` lists sessions newest first: ids, or
    /// dicts `{"session", "version", "recompress": settings}`. Options: `output`
    /// (`"both"`, `"markdown"`, `"jsonl"`), `replace`; `summarizer` as for
    /// `session_compress`, for what is compressed on demand.
    #[pyo3(signature = (name, components, *, budget, summarizer=None, **options))]
    fn session_compose(
        &self,
        py: Python<'_>,
        name: &str,
        components: &Bound<'_, PyAny>,
        budget: usize,
        summarizer: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        // One session may be given alone.
        let components = match py_to_json(components, "components", 1)? {
            Value::String(session) => vec![json!({"session": session})].into(),
            Value::Array(items) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(session) => json!({"session": session}),
                    other => other,
                })
                .collect(),
            other => other,
        };
        let fields = json!({"name": name, "components": components, "budget": budget});
        let class = "CompositionRecord";
        self.call_summarizing(py, "session_compose", fields, summarizer, options, class, {
            |core, request: &SessionComposeRequest, s| core.session_compose_with(request, s)
        })
    }

    /// Deletes versions of `session`: `versions=[...]`, or `keep_latest=N`. A version a
    /// composition uses raises `ConflictError` unless `force=True`. Returns a `PruneResult`.
    #[pyo3(signature = (session, **options))]
    fn session_prune(
        &self,
        py: Python<'_>,
        session: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"session": session}))?;
        self.call_record(py, "session_prune", request, "PruneResult")
    }

    /// Version `version` of `session` with its text, or with `"original"` the transcript
    /// (`VersionContent`).
    fn session_version(&self, py: Python<'_>, session: &str, version: &str) -> PyResult<Py<PyAny>> {
        let request = json!({"session": session, "version": version});
        self.call_record(py, "session_version", request, "VersionContent")
    }

    /// The composition `name` with the context it composed (`CompositionContext`).
    fn composition_show(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        self.call_record(py, "composition_show", json!({"name": name}), "CompositionContext")
    }

    /// Deletes the composition `name` (its record and files; the versions it used can then
    /// be pruned) and returns its `CompositionRecord`.
    fn composition_delete(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        self.call_record(py, "composition_delete", json!({"name": name}), "CompositionRecord")
    }

    /// Starts a live session of a tiered store (`backend: tiered`) and returns its
    /// `HotSession`. Options: `title`, `agents` (ids of the agents taking part). An id live
    /// or ended already raises `ConflictError`; a store that is not tiered
    /// `UnsupportedError`.
    #[pyo3(signature = (session, **options))]
    fn session_start(
        &self,
        py: Python<'_>,
        session: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"session": session}))?;
        self.call_record(py, "session_start", request, "HotSession")
    }

    /// Adds a turn (`role` said `content`) to the live session and returns its `HotSession`:
    /// the last turns stay verbatim, older ones roll into its summary.
    fn session_turn(
        &self,
        py: Python<'_>,
        session: &str,
        role: &str,
        content: &str,
    ) -> PyResult<Py<PyAny>> {
        let request = json!({"session": session, "role": role, "content": content});
        self.call_record(py, "session_turn", request, "HotSession")
    }

    /// Adds a working note, or with `kind="action_item"` an open action item, to the live
    /// session; `agent` makes a note that agent's own. Returns its `HotSession`.
    #[pyo3(signature = (session, text, **options))]
    fn session_note(
        &self,
        py: Python<'_>,
        session: &str,
        text: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"session": session, "text": text}))?;
        self.call_record(py, "session_note", request, "HotSession")
    }

    /// The live session's `HotSession`: last turns, rolling summary, action items, notes.
    fn session_live(&self, py: Python<'_>, session: &str) -> PyResult<Py<PyAny>> {
        self.call_record(py, "session_live", json!({"session": session}), "HotSession")
    }

    /// Ends the live session: its transcript goes to the cold tier, its summary, action items
    /// and notes to the warm tier (`sessions/<session>`), an entry onto the timeline. Options:
    /// `topics`, `consensus`. Ending it again raises `NotFoundError`; an end that failed
    /// part-way is resumed by calling again. Returns a `SessionEndReport`.
    #[pyo3(signature = (session, **options))]
    fn session_end(
        &self,
        py: Python<'_>,
        session: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"session": session}))?;
        self.call_record(py, "session_end", request, "SessionEndReport")
    }

    /// Searches across a tiered store's tiers, warm first and the cold archive as fallback
    /// or on request (`tier`: `"auto"`, `"warm"`, `"cold"` or `"all"`), and returns
    /// `RecallResults`: hits labelled `M1`, `M2`, ... with their tier, source, excerpt and
    /// provenance. Options: `tier`, `limit`, `mode`, `collections`, `agent`, `shared`, and
    /// `session` (a live session: the recall joins its retrieval history, and its labels are
    /// the session's). A store that is not tiered searches its warm tier only.
    #[pyo3(signature = (text, **options))]
    fn recall(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"text": py_to_json(text, "text", 1)?}))?;
        self.call_record(py, "recall", request, "RecallResults")
    }

    /// Retrieves into the live session `session` mid-conversation: for `keywords`, or for
    /// each `<<retrieve: ...>>` marker of an agent's `output`, searches the warm tier then the
    /// cold one, appends each passage to the session's context under its label (`Doc 1`,
    /// ... for documents' chunks, `M1`, ... for other evidence; stable within the session)
    /// and records the query in its retrieval history. Returns a `Retrieval` (a sequence of
    /// `RetrievedPassage`, with `context` ready for a prompt). Options: `agent`, `limit`
    /// (per query, default 3), `tier`, `mode`.
    #[pyo3(signature = (session, keywords=None, **options))]
    fn retrieve(
        &self,
        py: Python<'_>,
        session: &str,
        keywords: Option<&str>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"session": session, "keywords": keywords}))?;
        self.call_record(py, "retrieve", request, "Retrieval")
    }

    /// The timeline of ended sessions and events, oldest first, as a `TimelineListing`.
    /// Options: `agent`, `since`, `until` (datetimes or ISO 8601 strings).
    #[pyo3(signature = (**options))]
    fn timeline(&self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({}))?;
        self.call_record(py, "timeline", request, "TimelineListing")
    }

    /// Compacts a tiered store: memories last changed more than `tiered.warm_window_days`
    /// ago fold into a digest per collection and quarter and move whole to the cold tier
    /// (pinned ones stay). `dry_run=True` only reports the plan; `now` (a datetime or ISO
    /// 8601 text) judges ages at another time. Returns a `CompactionReport`.
    #[pyo3(signature = (**options))]
    fn compact(&self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({}))?;
        self.call_record(py, "compact", request, "CompactionReport")
    }

    /// Pins the memory `id` (`collection/id`, or with `collection=`), or with `session=` an
    /// ended session's summary and notes (importance 1.0), so that compaction leaves them
    /// warm. Returns a `RetainReport`.
    #[pyo3(signature = (id=None, *, collection=None, session=None))]
    fn retain(
        &self,
        py: Python<'_>,
        id: Option<&str>,
        collection: Option<&str>,
        session: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let reference = id.map(|id| reference(py, id, collection)).transpose()?;
        let request = request(None, json!({"ref": reference, "session": session}))?;
        self.call_record(py, "retain", request, "RetainReport")
    }

    /// Purges the memory `id` (`collection/id`, or with `collection=`), or with `session=` a
    /// session, from every tier and index of a tiered store for good, and returns the
    /// `AuditRecord` the audit log keeps. `reason` is required; `by` says who asks; pinned
    /// memories and live sessions raise `ConflictError` unless `force=True`.
    #[pyo3(signature = (id=None, *, reason, collection=None, session=None, by=None, force=false))]
    #[allow(clippy::too_many_arguments)]
    fn purge(
        &self,
        py: Python<'_>,
        id: Option<&str>,
        reason: &str,
        collection: Option<&str>,
        session: Option<&str>,
        by: Option<&str>,
        force: bool,
    ) -> PyResult<Py<PyAny>> {
        let reference = id.map(|id| reference(py, id, collection)).transpose()?;
        let fields = json!({
            "ref": reference, "session": session, "reason": reason, "by": by, "force": force,
        });
        self.call_record(py, "purge", request(None, fields)?, "AuditRecord")
    }

    /// Ingests documents (markdown or UTF-8 text files; `paths` one path or several,
    /// relative to the project root or absolute inside it): each is split along its headings
    /// and paragraphs into chunks, stored and indexed as memories of the `docs` collection.
    /// An unchanged file writes nothing, a changed one replaces exactly its chunks. Options:
    /// `root` (a directory inside the project the paths are read from; default the
    /// project root: the directory of `.memcore.yaml`, else the one holding the store), `tags`,
    /// `chunk_size` (characters, default 1000), `overlap` (default 100), `max_bytes`
    /// (default 32 MiB). Every file is checked before anything is written. Returns an
    /// `IngestReport`.
    #[pyo3(signature = (paths, *, root=None, tags=None, chunk_size=None, overlap=None, max_bytes=None))]
    #[allow(clippy::too_many_arguments)]
    fn docs_ingest(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        root: Option<PathBuf>,
        tags: Option<Vec<String>>,
        chunk_size: Option<usize>,
        overlap: Option<usize>,
        max_bytes: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        let fields = json!({
            "paths": path_list(paths)?, "root": root.as_deref().map(path_text).transpose()?,
            "tags": tags, "chunk_size": chunk_size, "overlap": overlap, "max_bytes": max_bytes,
        });
        self.call_record(py, "docs_ingest", request(None, fields)?, "IngestReport")
    }

    /// The ingested documents, sorted by id, as a `DocumentListing` (only those with every
    /// tag in `tags`, when given).
    #[pyo3(signature = (*, tags=None))]
    fn docs_list(&self, py: Python<'_>, tags: Option<Vec<String>>) -> PyResult<Py<PyAny>> {
        let request = request(None, json!({"tags": tags}))?;
        self.call_record(py, "docs_list", request, "DocumentListing")
    }

    /// Searches the documents' chunks and returns `DocumentHits`: each hit names its
    /// document, title, source, heading path and position. Options: `limit`, `mode`,
    /// `documents` (ids), `tags`, `feedback_prior` (nudge the ranking by the ratings given).
    #[pyo3(signature = (text, **options))]
    fn docs_search(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"text": py_to_json(text, "text", 1)?}))?;
        self.call_record(py, "docs_search", request, "DocumentHits")
    }

    /// Removes the document `document` for good (record, chunks, feedback and their index
    /// entries) and returns what went, a `DocumentPurged`.
    fn docs_purge(&self, py: Python<'_>, document: &str) -> PyResult<Py<PyAny>> {
        let request = request(None, json!({"document": document}))?;
        self.call_record(py, "docs_purge", request, "DocumentPurged")
    }

    /// Splits documents again from their files (`documents`: ids; all by default), after an
    /// edit or with a new `chunk_size` / `overlap`. Returns an `IngestReport`.
    #[pyo3(signature = (documents=None, *, chunk_size=None, overlap=None))]
    fn docs_rebuild(
        &self,
        py: Python<'_>,
        documents: Option<Vec<String>>,
        chunk_size: Option<usize>,
        overlap: Option<usize>,
    ) -> PyResult<Py<PyAny>> {
        let fields = json!({"documents": documents, "chunk_size": chunk_size, "overlap": overlap});
        self.call_record(py, "docs_rebuild", request(None, fields)?, "IngestReport")
    }

    /// Rates how useful the document `document` (or with `chunk=`, one of its chunks by
    /// position) was, from 1 to 5, with an optional `note` and `by`; ratings are only ever
    /// added. Returns the `FeedbackRecord`.
    #[pyo3(signature = (document, rating, *, chunk=None, note=None, by=None))]
    fn docs_feedback(
        &self,
        py: Python<'_>,
        document: &str,
        rating: u8,
        chunk: Option<usize>,
        note: Option<&str>,
        by: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let fields =
            json!({"document": document, "rating": rating, "chunk": chunk, "note": note, "by": by});
        self.call_record(py, "docs_feedback", request(None, fields)?, "FeedbackRecord")
    }

    /// Sets the profile of the agent `agent` (the whole profile: a new version replaces the
    /// old) and returns it as an `AgentProfile`. Options: `name`, `persona`, `style`,
    /// `recent_limit` (memories its profile shows, default 10), `max_memories` (the most it
    /// may own), `fields` (a dict of anything else the application keeps about it).
    #[pyo3(signature = (agent, **options))]
    fn agent_set(
        &self,
        py: Python<'_>,
        agent: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"agent": agent}))?;
        self.call_record(py, "agent_set", request, "AgentProfile")
    }

    /// The profile of the agent `agent` with its newest memories (at most `limit`, else its
    /// profile's `recent_limit`) and how many it owns, as an `AgentView` (a sequence of its
    /// memories). Raises `NotFoundError` for an agent without a profile.
    #[pyo3(signature = (agent, *, limit=None))]
    fn agent_profile(
        &self,
        py: Python<'_>,
        agent: &str,
        limit: Option<usize>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(None, json!({"agent": agent, "limit": limit}))?;
        self.call_record(py, "agent_profile", request, "AgentView")
    }

    /// Stores `content` as a memory of the agent `agent`'s own (its `agent` metadata names
    /// it) and returns the `Memory`. Options: `title`, `collection`, `tags`. Raises
    /// `NotFoundError` for an agent without a profile and `ConflictError` past its
    /// `max_memories`.
    #[pyo3(signature = (agent, content, **options))]
    fn agent_remember(
        &self,
        py: Python<'_>,
        agent: &str,
        content: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({"agent": agent, "content": content}))?;
        self.call_record(py, "agent_remember", request, "Memory")
    }

    /// Writes the project's manifest (`project.json` in the store) and returns the
    /// `ProjectInfo`. Options: `project_id`, `display_name`, `description`, `default_agents`,
    /// `hot_context_turns`, `warm_window_days`, `archive_after_days`, `summary_mode`
    /// (`"heuristic"`, `"command"`, `"none"`), `summary_command` (the program and its
    /// arguments, run without a shell), `summary_timeout_ms`; what is left out is the policy
    /// in force. Raises `ConflictError` when a manifest exists. It applies from the next open.
    #[pyo3(signature = (**options))]
    fn project_init(
        &self,
        py: Python<'_>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let request = request(options, json!({}))?;
        self.call_record(py, "project_init", request, "ProjectInfo")
    }

    /// The project: its manifest (a dict, every key kept), the policy in force, its agents,
    /// documents and newest sessions, as a `ProjectInfo`.
    fn project_info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call_record(py, "project_info", json!({}), "ProjectInfo")
    }

    /// Trusts the manifest's summary command on this machine (mode `command` runs a program
    /// only once trusted): read it first. Raises `ValidationError` when the manifest names
    /// no command.
    fn project_trust(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call_record(py, "project_trust", json!({}), "ProjectInfo")
    }

    /// Sets the summariser compressions use by default (`summarizer="auto"`): a callable
    /// `summarize(request: dict) -> str` (an LLM call, say), recorded as `name` (default: its
    /// `__name__`); `None` goes back to the project manifest's summary mode, else the built-in
    /// extractive summariser. A callable that
    /// holds the store makes a cycle Python's collector cannot see: `close()` the store (or
    /// use it in a `with` block) to release it.
    #[pyo3(signature = (summarizer, *, name=None))]
    fn set_summarizer(
        &self,
        py: Python<'_>,
        summarizer: Option<&Bound<'_, PyAny>>,
        name: Option<&str>,
    ) -> PyResult<()> {
        let summarizer = match summarizer.filter(|s| !s.is_none()) {
            Some(callable) => Some(py_summarizer(callable, name)?),
            None => None,
        };
        self.core(py)?.set_summarizer(summarizer);
        Ok(())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<memcore.Memcore path={}{}>",
            py_repr(py, &self.root.display().to_string())?,
            if self.closed() { " closed" } else { "" }
        ))
    }
}

/// The `summarizer` argument: a choice (`"auto"`, `"extractive"`, `"callback"`) goes into
/// the request's `fields`; a callable is returned, to summarise this call.
fn summarizer_arg(
    summarizer: Option<&Bound<'_, PyAny>>,
    fields: &mut Value,
) -> PyResult<Option<Arc<dyn Summarizer>>> {
    let Some(summarizer) = summarizer.filter(|s| !s.is_none()) else { return Ok(None) };
    if let Ok(choice) = summarizer.cast::<PyString>() {
        fields["summarizer"] = Value::String(choice.to_cow()?.into_owned());
        return Ok(None);
    }
    py_summarizer(summarizer, None).map(Some)
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
            return Err(PyTypeError::new_err("rev must be a str or an int, not bool"));
        }
        match obj.extract::<i64>() {
            Ok(n) => Ok(Self(n.to_string())),
            Err(_) => Err(PyTypeError::new_err(format!(
                "rev must be a str or an int, not {}",
                type_name(&obj.to_owned())
            ))),
        }
    }
}

/// Every operation `Memcore.call` runs: a list of dicts with its `name`, `summary`, and the
/// JSON Schemas of its `request` and `result` records.
#[pyfunction]
fn operations(py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
    OPERATIONS.iter().map(|entry| Ok(json_to_py(py, &entry.describe())?.unbind())).collect()
}

/// Opens (creating if needed) a memory store: the directory `path`, or, without a path, the
/// store `scope` names: `"auto"` (the project store found walking up from `start_dir`, by
/// default the working directory, else the global one), `"local"` (the project store; a
/// `NotFoundError` without one) or `"global"` (`$MEMCORE_HOME`, ...).
///
/// `backend` overrides the store's config (`backend:` in its `config.yaml` or
/// `.memcore.yaml`): `"file"` (markdown files), `"git-notes"` (git notes in the repository
/// holding the directory, which needs a first commit before anything is stored) or
/// `"postgres"` (a PostgreSQL database shared by many machines: `postgres.url` in the config,
/// else `$MEMCORE_DATABASE_URL`; the directory keeps this machine's indexes) or `"tiered"`
/// (markdown files as the warm tier, plus live sessions in a hot tier and their transcripts
/// in a compressed cold archive: `session_start`, `session_end`, `timeline`).
///
/// `embedder` brings a model of your own for semantic and hybrid search instead of the
/// built-in all-MiniLM-L6-v2: an object with `model_id` (str, stored with every vector: a
/// store embedded by another model id is embedded again), `dimension` (int) and
/// `embed(texts)` returning one vector per text (lists of floats, or a NumPy array). It is
/// called with the texts of new memories and with queries, from any thread.
///
/// An index found damaged is rebuilt from the store while opening, with a `RuntimeWarning`
/// saying so (the disk or a tool damaged something).
#[pyfunction]
#[pyo3(signature = (path=None, *, scope="auto", start_dir=None, backend=None, embedder=None))]
fn open(
    py: Python<'_>,
    path: Option<PathBuf>,
    scope: &str,
    start_dir: Option<PathBuf>,
    backend: Option<&str>,
    embedder: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyMemcore> {
    let scope = choice(
        py,
        "scope",
        scope,
        &[("auto", Scope::Auto), ("local", Scope::Local), ("global", Scope::Global)],
    )?;
    let backend = backend
        .map(|b| {
            let backends = [
                ("file", Backend::File),
                ("git-notes", Backend::GitNotes),
                ("postgres", Backend::Postgres),
                ("tiered", Backend::Tiered),
            ];
            choice(py, "backend", b, &backends)
        })
        .transpose()?;
    if path.is_some() && (scope != Scope::Auto || start_dir.is_some()) {
        return Err(invalid(
            py,
            "pass either a path or a scope (with start_dir), not both",
            "memcore.open(path) opens that directory; memcore.open(scope=...) finds the store",
        ));
    }
    let embedder = embedder.filter(|e| !e.is_none()).map(py_embedder).transpose()?;
    let installed = crate::installed::installed_model(py);
    let core = run(py, move || {
        let mut builder = memcore::Memcore::builder().scope(scope);
        if let Some(embedder) = embedder {
            builder = builder.embedder(embedder);
        }
        if let Some(files) = installed {
            builder = builder.installed_model(files);
        }
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
    // Damage repaired on the way (an index rebuilt because it was unreadable), or index work
    // that could not be done (a full disk), is a Python warning, so the user learns of it.
    for work in core.opened_with().iter().filter(|work| work.needs_attention()) {
        let message = std::ffi::CString::new(work.to_string()).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<PyRuntimeWarning>(), &message, 1)?;
    }
    let location = core.location();
    Ok(PyMemcore {
        root: location.root.clone(),
        config_file: location.config_file.clone(),
        core: RwLock::new(Some(Arc::new(core))),
    })
}

/// Adds `Memcore`, `open` and `operations` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMemcore>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(operations, m)?)?;
    Ok(())
}
