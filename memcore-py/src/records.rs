//! Result records: every result class of the module (`Memory`, `SearchResults`, `VerifyReport`,
//! ...) is made from the JSON Schema of the core's result type, not written by hand.
//!
//! Each class derives from [`PyRecord`] (`memcore.Record`), which holds the result's serde form
//! (JSON) and converts a field to Python only when it is read: timestamps become aware
//! `datetime`s, lists tuples, nested records record objects, reported errors exception
//! objects, everything else the plain Python value. The classes get one read-only property
//! per schema property, so a field added to a core record reaches Python with no binding code;
//! the stubs (`_memcore.pyi`, checked by stubtest) say what they are. A field whose name is a
//! Python keyword gets a trailing underscore (`LifecycleStep.from_`). [`KINDS`] lists the
//! classes: a name, the core type, how `repr` shows it and, for results that are sequences
//! (`SearchResults`, `Listing`), which field holds the items.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use memcore::api::MemoryRecord;
use memcore::{agent, capture, compose, decay, docs, links, project, session};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCFunction, PyDict, PyInt, PyList, PySlice, PyTuple, PyType};
use schemars::{JsonSchema, Schema};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::convert::{json_to_py, py_repr, type_name};
use crate::errors::{from_info, to_pyerr};

/// How one field of a record becomes a Python value.
#[derive(Debug, Clone)]
enum Shape {
    /// As JSON maps to Python (str, int, float, bool, None, dict, list).
    Plain,
    /// An RFC 3339 string: an aware `datetime`.
    Time,
    /// A list: a tuple of converted items.
    Tuple(Box<Shape>),
    /// An object whose values are converted: a dict.
    Map(Box<Shape>),
    /// A nested record of the class at this index of [`KINDS`].
    Record(usize),
    /// A reported error: an exception object of the matching class.
    Error,
}

/// One result class.
pub(crate) struct Kind {
    /// The Python class name.
    name: &'static str,
    /// The name of the type's schema (the `$defs` key records refer to it by).
    schema_name: fn() -> String,
    /// The JSON Schema of the core type.
    schema: fn() -> Schema,
    /// What `repr` shows: `field` as `field=value`, `#field` as the field's length, `@field`
    /// as its keys, `len` and `refs` as the number and first references of the items, `a.b`
    /// as `b=value`.
    repr: &'static [&'static str],
    /// For a sequence, the field holding its items.
    items: Option<&'static str>,
}

/// The kind of the core type `T`, shown in Python as `name`.
const fn kind<T: JsonSchema>(
    name: &'static str,
    repr: &'static [&'static str],
    items: Option<&'static str>,
) -> Kind {
    Kind { name, schema_name: schema_name::<T>, schema: schema_of::<T>, repr, items }
}

fn schema_name<T: JsonSchema>() -> String {
    T::schema_name().into_owned()
}

fn schema_of<T: JsonSchema>() -> Schema {
    schemars::schema_for!(T)
}

/// Every result class, by index (see [`Record`]).
pub(crate) const KINDS: &[Kind] = &[
    kind::<MemoryRecord>("Memory", &["ref", "title", "version", "status"], None),
    kind::<memcore::MemorySummary>("MemorySummary", &["ref", "title", "version", "status"], None),
    kind::<memcore::ScoreParts>(
        "ScoreParts",
        &["text_rank", "text_score", "vector_rank", "vector_similarity", "base", "recency"],
        None,
    ),
    kind::<memcore::Hit>("Hit", &["memory.ref", "memory.title", "score"], None),
    kind::<memcore::SearchResults>(
        "SearchResults",
        &["mode", "len", "refs", "#warnings", "#maintenance"],
        Some("hits"),
    ),
    kind::<memcore::Listing>("Listing", &["len", "refs", "#skipped"], Some("memories")),
    kind::<memcore::Version>("Version", &["rev", "version", "timestamp", "current"], None),
    kind::<memcore::TrashEntry>("TrashEntry", &["ref", "deleted_at"], None),
    kind::<memcore::IndexCheck>(
        "IndexCheck",
        &["#missing", "#orphaned", "#mismatched", "unavailable"],
        None,
    ),
    kind::<memcore::ArchiveCheck>(
        "ArchiveCheck",
        &["segments", "records", "#damaged", "unindexed", "dangling"],
        None,
    ),
    kind::<memcore::ArchiveRepair>(
        "ArchiveRepair",
        &["torn_bytes", "frames_set_aside", "reindexed"],
        None,
    ),
    kind::<memcore::VerifyReport>(
        "VerifyReport",
        &["store_count", "consistent", "@indexes", "#unreadable"],
        None,
    ),
    kind::<memcore::IndexRepair>("IndexRepair", &["reindexed", "removed"], None),
    kind::<memcore::RepairReport>("RepairReport", &["reindexed", "removed"], None),
    kind::<memcore::IndexRebuild>("IndexRebuild", &["indexed", "unavailable"], None),
    kind::<memcore::ReindexReport>("ReindexReport", &["memories", "@indexes", "#unreadable"], None),
    kind::<memcore::SyncReport>("SyncReport", &["synced", "full"], None),
    kind::<memcore::MovedMemory>("MovedMemory", &["from", "to"], None),
    kind::<memcore::RenamedMemory>("RenamedMemory", &["id", "from", "to"], None),
    kind::<memcore::MergeConflict>("MergeConflict", &["id", "kept"], None),
    kind::<memcore::NamespaceMerge>(
        "NamespaceMerge",
        &["namespace", "outcome", "added", "updated", "#moved", "#renamed", "#conflicts"],
        None,
    ),
    kind::<memcore::NotesMergeReport>(
        "NotesMergeReport",
        &["remote", "len", "indexed"],
        Some("namespaces"),
    ),
    kind::<memcore::CommitInfo>("CommitInfo", &["sha", "author", "time", "message"], None),
    kind::<memcore::ChangedFile>("ChangedFile", &["path", "size"], None),
    kind::<memcore::Hydrated>(
        "Hydrated",
        &["memory.ref", "level", "#files", "files_omitted"],
        None,
    ),
    kind::<memcore::Stats>("Stats", &["memories", "collections", "statuses", "unreadable"], None),
    kind::<decay::LifecycleStats>(
        "LifecycleStats",
        &["scanned", "archived", "tombstoned", "deleted", "skipped", "failed"],
        None,
    ),
    kind::<decay::LifecycleStep>("LifecycleStep", &["ref", "action", "from", "to"], None),
    kind::<decay::LifecycleReport>(
        "LifecycleReport",
        &["dry_run", "stats.archived", "stats.tombstoned", "stats.deleted", "#steps", "#errors"],
        None,
    ),
    kind::<decay::KeepitMarker>(
        "KeepitMarker",
        &["index", "weight", "level", "start_char", "end_char"],
        None,
    ),
    kind::<decay::MarkerPreview>(
        "MarkerPreview",
        &["index", "weight", "level", "survives_through"],
        None,
    ),
    kind::<decay::DistanceThreshold>(
        "DistanceThreshold",
        &["distance", "threshold", "surviving"],
        None,
    ),
    kind::<decay::KeepitPreview>(
        "KeepitPreview",
        &["ratio", "aggressiveness", "max_distance", "#markers"],
        None,
    ),
    kind::<capture::CaptureSignal>(
        "CaptureSignal",
        &["type", "match", "confidence", "namespace", "start_char"],
        None,
    ),
    kind::<capture::SimilarMemory>("SimilarMemory", &["ref", "similarity"], None),
    kind::<capture::Novelty>("Novelty", &["score", "is_novel", "method"], None),
    kind::<capture::SuggestedCapture>(
        "SuggestedCapture",
        &["type", "action", "namespace", "confidence", "summary"],
        None,
    ),
    kind::<capture::SkippedCapture>("SkippedCapture", &["signal", "reason"], None),
    kind::<links::LinkEdge>("LinkEdge", &["source", "node", "type", "start_char"], None),
    kind::<links::MergeResult>("MergeResult", &["memory.ref", "#trashed", "#repointed"], None),
    kind::<memcore::TargetCount>("TargetCount", &["node", "links"], None),
    kind::<memcore::LinkStats>("LinkStats", &["links", "targets", "ghosts"], None),
    kind::<capture::CaptureDecision>(
        "CaptureDecision",
        &["action", "reason", "#signals", "#captures", "#skipped", "stored"],
        None,
    ),
    kind::<compose::Budget>("Budget", &["total", "working", "semantic", "tier"], None),
    kind::<compose::ContextItem>(
        "ContextItem",
        &["label", "ref", "section", "tokens", "truncated"],
        None,
    ),
    kind::<compose::ManifestEntry>(
        "ManifestEntry",
        &["ref", "source", "rank", "outcome", "label", "tokens_used"],
        None,
    ),
    kind::<compose::ComposedContext>(
        "ComposedContext",
        &["format", "tokens", "budget.total", "#items", "#manifest"],
        None,
    ),
    kind::<session::SkippedLine>("SkippedLine", &["line", "reason"], None),
    kind::<session::SessionKeepit>("SessionKeepit", &["marker_id", "weight", "survived_in"], None),
    kind::<session::KeepitStats>("KeepitStats", &["preserved", "summarized"], None),
    kind::<session::CompressionRecord>(
        "CompressionRecord",
        &["version_id", "file", "output_tokens", "compression_ratio"],
        None,
    ),
    kind::<session::SessionRecord>(
        "SessionRecord",
        &["session_id", "original_tokens", "original_messages", "#keepit_markers", "#compressions"],
        None,
    ),
    kind::<session::SessionSummary>(
        "SessionSummary",
        &["session_id", "original_tokens", "versions", "keepit_markers"],
        None,
    ),
    kind::<session::CompositionComponent>(
        "CompositionComponent",
        &["session_id", "version_id", "selection", "token_contribution"],
        None,
    ),
    kind::<session::CompositionRecord>(
        "CompositionRecord",
        &["name", "total_tokens", "#components", "used_in_sessions"],
        None,
    ),
    kind::<session::VersionContent>("VersionContent", &["version"], None),
    kind::<session::CompositionContext>("CompositionContext", &["composition"], None),
    kind::<session::SessionListing>("SessionListing", &["#sessions", "#compositions"], None),
    kind::<session::PruneResult>("PruneResult", &["deleted", "kept", "#warnings"], None),
    kind::<memcore::HotTurn>("HotTurn", &["number", "role", "at"], None),
    kind::<memcore::HotNote>("HotNote", &["agent", "text"], None),
    kind::<memcore::HotEvidence>("HotEvidence", &["label", "tier", "source"], None),
    kind::<memcore::HotRetrieval>("HotRetrieval", &["query", "labels"], None),
    kind::<memcore::HotSession>(
        "HotSession",
        &["session_id", "turn_count", "#turns", "#action_items", "#notes", "#retrievals"],
        None,
    ),
    kind::<memcore::TimelineEntry>("TimelineEntry", &["kind", "session_id", "title", "at"], None),
    kind::<session::SessionEndReport>(
        "SessionEndReport",
        &["session", "turns", "archived", "memories"],
        None,
    ),
    kind::<memcore::TimelineListing>(
        "TimelineListing",
        &["#entries", "unreadable"],
        Some("entries"),
    ),
    kind::<memcore::DigestStep>("DigestStep", &["digest", "#originals", "folded", "extends"], None),
    kind::<memcore::CompactionReport>(
        "CompactionReport",
        &["dry_run", "cutoff", "#digests", "pinned", "demoted"],
        Some("digests"),
    ),
    kind::<memcore::RetainReport>("RetainReport", &["pinned"], None),
    kind::<memcore::AuditRecord>("AuditRecord", &["target", "at", "warm", "cold"], None),
    kind::<memcore::RecallHit>("RecallHit", &["label", "tier", "source", "title"], None),
    kind::<memcore::RecallResults>("RecallResults", &["mode", "#hits"], Some("hits")),
    kind::<memcore::RetrievedPassage>("RetrievedPassage", &["label", "source", "title"], None),
    kind::<memcore::Retrieval>("Retrieval", &["#queries", "#passages"], Some("passages")),
    kind::<docs::DocumentRecord>("DocumentRecord", &["id", "source", "#chunks"], None),
    kind::<docs::IngestedDocument>("IngestedDocument", &["outcome", "document.id"], None),
    kind::<docs::IngestReport>("IngestReport", &["len"], Some("documents")),
    kind::<docs::DocumentListing>("DocumentListing", &["len"], Some("documents")),
    kind::<docs::DocumentHit>(
        "DocumentHit",
        &["document", "heading_path", "position", "score"],
        None,
    ),
    kind::<docs::DocumentHits>("DocumentHits", &["mode", "#hits"], Some("hits")),
    kind::<docs::DocumentPurged>("DocumentPurged", &["document", "chunks", "feedback"], None),
    kind::<docs::FeedbackRecord>("FeedbackRecord", &["document", "chunk", "rating"], None),
    kind::<agent::AgentProfile>("AgentProfile", &["agent", "name"], None),
    kind::<agent::AgentView>("AgentView", &["profile.agent", "total"], Some("memories")),
    kind::<project::ProjectPolicy>("ProjectPolicy", &["backend", "summary_mode"], None),
    kind::<project::ProjectInfo>("ProjectInfo", &["project_dir", "#agents", "documents"], None),
];

/// The index in [`KINDS`] of the class called `name`; a name not there is a bug in the
/// binding, raised as one (never a record of the wrong class).
pub(crate) fn kind_index(name: &str) -> PyResult<usize> {
    KINDS.iter().position(|kind| kind.name == name).ok_or_else(|| {
        PyRuntimeError::new_err(format!(
            "memcore has no record class {name:?}: this is a bug in memcore, please report it"
        ))
    })
}

/// A class made from a [`Kind`]: its Python type and how each field converts.
struct Made {
    class: Py<PyType>,
    fields: Vec<(String, Shape)>,
}

static MADE: PyOnceLock<Vec<Made>> = PyOnceLock::new();

/// The classes, made on first use from the core's schemas.
fn made(py: Python<'_>) -> PyResult<&'static Vec<Made>> {
    MADE.get_or_try_init(py, || {
        let names: Vec<String> = KINDS.iter().map(|kind| (kind.schema_name)()).collect();
        let builtins = py.import("builtins")?;
        let (type_, property) = (builtins.getattr("type")?, builtins.getattr("property")?);
        let is_keyword = py.import("keyword")?.getattr("iskeyword")?;
        let mut all = Vec::with_capacity(KINDS.len());
        for (index, kind) in KINDS.iter().enumerate() {
            let schema = (kind.schema)();
            let root = schema.as_value();
            let defs = root.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
            let description = root.get("description").and_then(Value::as_str).unwrap_or("");
            let mut fields = Vec::new();
            let namespace = PyDict::new(py);
            namespace.set_item("__module__", "memcore")?;
            namespace.set_item("__doc__", description)?;
            namespace.set_item("__slots__", PyTuple::empty(py))?;
            for (name, field) in properties(root, &defs) {
                fields.push((name.clone(), shape(&field, &defs, &names)));
                let getter = field_getter(py, index, fields.len() - 1)?;
                let doc = field.get("description").and_then(Value::as_str).unwrap_or("");
                // A field named like a Python keyword (`from`) is read as `from_` (PEP 8);
                // `to_dict()` and `repr` keep the field's own name.
                let attribute = if is_keyword.call1((&name,))?.is_truthy()? {
                    format!("{name}_")
                } else {
                    name
                };
                namespace
                    .set_item(attribute, property.call1((getter, py.None(), py.None(), doc))?)?;
            }
            let base = match (kind.items, kind.name) {
                (Some(_), _) => py.get_type::<PySequenceRecord>(),
                (None, "Memory") => py.get_type::<PyMemoryRecord>(),
                _ => py.get_type::<PyRecord>(),
            };
            let class = type_.call1((kind.name, (base,), namespace))?;
            all.push(Made { class: class.cast_into::<PyType>()?.unbind(), fields });
        }
        Ok(all)
    })
}

/// Adds every result class to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRecord>()?;
    m.add_class::<PySequenceRecord>()?;
    m.add_class::<PyMemoryRecord>()?;
    m.add_class::<RecordIterator>()?;
    for (kind, made) in KINDS.iter().zip(made(m.py())?) {
        m.add(kind.name, made.class.bind(m.py()))?;
    }
    Ok(())
}

/// The properties of an object schema, in order, following `$ref`s and flattened parts
/// (`allOf`).
fn properties(schema: &Value, defs: &Map<String, Value>) -> Vec<(String, Value)> {
    let schema = resolve(schema, defs);
    let mut out: Vec<(String, Value)> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| props.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    for part in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        out.extend(properties(part, defs));
    }
    out
}

/// `schema` with a `$ref` to a definition followed.
fn resolve<'a>(schema: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    match ref_name(schema).and_then(|name| defs.get(name)) {
        Some(target) => resolve(target, defs),
        None => schema,
    }
}

/// The definition a `{"$ref": "#/$defs/Name"}` schema names.
fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.rsplit('/').next()
}

/// How values of `schema` convert; `records` are the schema names of [`KINDS`].
fn shape(schema: &Value, defs: &Map<String, Value>, records: &[String]) -> Shape {
    if let Some(name) = ref_name(schema) {
        if name == "ErrorInfo" {
            return Shape::Error;
        }
        if let Some(index) = records.iter().position(|record| record == name) {
            return Shape::Record(index);
        }
        return defs.get(name).map_or(Shape::Plain, |target| shape(target, defs, records));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let mut real = branches.iter().filter(|b| b.get("type") != Some(&Value::from("null")));
            return match (real.next(), real.next()) {
                (Some(only), None) => shape(only, defs, records),
                _ => Shape::Plain,
            };
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => {
            kinds.iter().filter_map(Value::as_str).find(|k| *k != "null").unwrap_or("null")
        }
        _ => return Shape::Plain,
    };
    match kind {
        "string" if schema.get("format") == Some(&Value::from("date-time")) => Shape::Time,
        "array" => {
            let items = schema.get("items").map_or(Shape::Plain, |s| shape(s, defs, records));
            Shape::Tuple(Box::new(items))
        }
        "object" => match schema.get("additionalProperties") {
            Some(values @ Value::Object(_)) => Shape::Map(Box::new(shape(values, defs, records))),
            _ => Shape::Plain,
        },
        _ => Shape::Plain,
    }
}

/// `value` as the Python object `shape` asks for.
fn to_py<'py>(py: Python<'py>, value: &Value, shape: &Shape) -> PyResult<Bound<'py, PyAny>> {
    Ok(match (shape, value) {
        (_, Value::Null) => py.None().into_bound(py),
        (Shape::Time, Value::String(text)) => match text.parse::<memcore::Timestamp>() {
            Ok(time) => time.into_pyobject(py)?.into_any(),
            Err(_) => json_to_py(py, value)?,
        },
        (Shape::Tuple(items), Value::Array(values)) => {
            let converted =
                values.iter().map(|v| to_py(py, v, items)).collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, converted)?.into_any()
        }
        (Shape::Map(values), Value::Object(map)) => {
            let dict = PyDict::new(py);
            for (key, v) in map {
                dict.set_item(key, to_py(py, v, values)?)?;
            }
            dict.into_any()
        }
        (Shape::Record(kind), Value::Object(_)) => record(py, *kind, value.clone())?,
        (Shape::Error, Value::Object(_)) => match serde_json::from_value(value.clone()) {
            Ok(info) => from_info(py, &info).into_value(py).into_bound(py).into_any(),
            Err(_) => json_to_py(py, value)?,
        },
        _ => json_to_py(py, value)?,
    })
}

/// `value` as plain Python data (`to_dict`): records as dicts, lists as lists, reported
/// errors as their `{category, message, recovery, ...}` dicts; times stay `datetime`s.
fn to_plain<'py>(py: Python<'py>, value: &Value, shape: &Shape) -> PyResult<Bound<'py, PyAny>> {
    Ok(match (shape, value) {
        (_, Value::Null) => py.None().into_bound(py),
        (Shape::Time, Value::String(_)) => to_py(py, value, shape)?,
        (Shape::Tuple(items), Value::Array(values)) => {
            let converted =
                values.iter().map(|v| to_plain(py, v, items)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, converted)?.into_any()
        }
        (Shape::Map(values), Value::Object(map)) => {
            let dict = PyDict::new(py);
            for (key, v) in map {
                dict.set_item(key, to_plain(py, v, values)?)?;
            }
            dict.into_any()
        }
        (Shape::Record(kind), Value::Object(map)) => record_dict(py, *kind, map)?.into_any(),
        _ => json_to_py(py, value)?,
    })
}

/// The dict of a record's fields, each as [`to_plain`] makes it.
fn record_dict<'py>(
    py: Python<'py>,
    kind: usize,
    map: &Map<String, Value>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, shape) in &made(py)?[kind].fields {
        dict.set_item(name, to_plain(py, map.get(name).unwrap_or(&Value::Null), shape)?)?;
    }
    Ok(dict)
}

/// A record of the class at `kind` in [`KINDS`] holding `value`.
pub(crate) fn record(py: Python<'_>, kind: usize, value: Value) -> PyResult<Bound<'_, PyAny>> {
    let data = Bound::new(py, RecordData { kind, value: Arc::new(value) })?;
    made(py)?[kind].class.bind(py).call1((data,))
}

/// A result of the JSON Schema `schema` as Python: a record where the schema is a record
/// class's, else plain data whose fields are converted by their schemas (records inside it
/// are record objects).
pub(crate) fn from_schema(py: Python<'_>, schema: &Schema, value: Value) -> PyResult<Py<PyAny>> {
    let names: Vec<String> = KINDS.iter().map(|kind| (kind.schema_name)()).collect();
    let root = schema.as_value();
    let title = root.get("title").and_then(Value::as_str);
    if let Some(index) = title.and_then(|t| names.iter().position(|name| name == t)) {
        return Ok(record(py, index, value)?.unbind());
    }
    let defs = root.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let fields = properties(root, &defs);
    match value {
        Value::Object(map) if !fields.is_empty() => {
            let dict = PyDict::new(py);
            for (name, field) in fields {
                let converted = to_py(
                    py,
                    map.get(&name).unwrap_or(&Value::Null),
                    &shape(&field, &defs, &names),
                )?;
                dict.set_item(name, converted)?;
            }
            Ok(dict.into_any().unbind())
        }
        value => Ok(to_py(py, &value, &shape(root, &defs, &names))?.unbind()),
    }
}

/// The record of `result` (a core result) in the class called `name`.
pub(crate) fn from_result<T: Serialize>(
    py: Python<'_>,
    name: &str,
    result: &T,
) -> PyResult<Py<PyAny>> {
    let value = serde_json::to_value(result).map_err(|e| {
        to_pyerr(
            py,
            &memcore::Error::index(
                format!("a result did not serialise: {e}"),
                None,
                "report this as a bug",
            ),
        )
    })?;
    Ok(record(py, kind_index(name)?, value)?.unbind())
}

/// What a record class is made from; passed to its constructor. Internal.
#[pyclass(frozen, module = "memcore", name = "_RecordData")]
pub(crate) struct RecordData {
    kind: usize,
    value: Arc<Value>,
}

/// The base of every result class: an immutable record of the core, read field by field.
/// Records compare equal by value; `to_dict()` gives every field as plain Python data.
#[pyclass(frozen, subclass, module = "memcore", name = "Record")]
pub(crate) struct PyRecord {
    kind: usize,
    value: Arc<Value>,
}

impl PyRecord {
    fn made<'a>(&self, py: Python<'a>) -> PyResult<&'a Made> {
        Ok(&made(py)?[self.kind])
    }

    /// The field at `index` of this record's class, converted.
    fn field<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyAny>> {
        let (name, shape) = &self.made(py)?.fields[index];
        to_py(py, self.value.get(name).unwrap_or(&Value::Null), shape)
    }

    /// The value at a dotted `path` (`memory.ref`), as JSON.
    fn at(&self, path: &str) -> &Value {
        path.split('.').fold(&*self.value, |value, key| value.get(key).unwrap_or(&Value::Null))
    }

    /// The items of a sequence record.
    fn items(&self) -> PyResult<&[Value]> {
        let field = KINDS[self.kind].items.ok_or_else(|| {
            PyTypeError::new_err(format!("{} is not a sequence", KINDS[self.kind].name))
        })?;
        Ok(self.value.get(field).and_then(Value::as_array).map_or(&[], Vec::as_slice))
    }

    /// The converted item at `index` of a sequence record.
    fn item<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyAny>> {
        let field = KINDS[self.kind].items.unwrap_or_default();
        let shape = self
            .made(py)?
            .fields
            .iter()
            .find(|(name, _)| name == field)
            .map(|(_, shape)| shape.clone());
        let item_shape = match shape {
            Some(Shape::Tuple(item)) => *item,
            _ => Shape::Plain,
        };
        to_py(py, &self.items()?[index], &item_shape)
    }
}

#[pymethods]
impl PyRecord {
    #[new]
    fn new(data: PyRef<'_, RecordData>) -> Self {
        Self { kind: data.kind, value: Arc::clone(&data.value) }
    }

    /// Every field as plain Python data (a new dict): nested records as dicts, lists as
    /// lists, times as `datetime`s.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match &*self.value {
            Value::Object(map) => record_dict(py, self.kind, map),
            _ => Ok(PyDict::new(py)),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyRecord>().is_ok_and(|o| {
            let o = o.get();
            o.kind == self.kind && o.value == self.value
        })
    }

    #[classattr]
    const __hash__: Option<Py<PyAny>> = None;

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::new();
        for spec in KINDS[self.kind].repr {
            let part = match *spec {
                "len" => format!("len={}", self.items()?.len()),
                "refs" => {
                    let refs = self
                        .items()?
                        .iter()
                        .take(3)
                        .map(|item| {
                            let reference = item.get("ref").or_else(|| item.pointer("/memory/ref"));
                            py_repr(py, reference.and_then(Value::as_str).unwrap_or("?"))
                        })
                        .collect::<PyResult<Vec<_>>>()?;
                    let more = if self.items()?.len() > 3 { ", ..." } else { "" };
                    format!("refs=[{}{more}]", refs.join(", "))
                }
                keyed if keyed.starts_with('@') => {
                    let name = &keyed[1..];
                    let keys = match self.value.get(name) {
                        Some(Value::Object(map)) => {
                            map.keys().map(|key| py_repr(py, key)).collect::<PyResult<Vec<_>>>()?
                        }
                        _ => Vec::new(),
                    };
                    format!("{name}=[{}]", keys.join(", "))
                }
                counted if counted.starts_with('#') => {
                    let name = &counted[1..];
                    let n = match self.value.get(name) {
                        Some(Value::Array(items)) => items.len(),
                        Some(Value::Object(map)) => map.len(),
                        _ => 0,
                    };
                    format!("{name}={n}")
                }
                path => {
                    let shown = path.rsplit('.').next().unwrap_or(path);
                    let value = json_to_py(py, self.at(path))?;
                    format!("{shown}={}", value.repr()?)
                }
            };
            parts.push(part);
        }
        Ok(format!("{}({})", KINDS[self.kind].name, parts.join(", ")))
    }
}

/// The property getter of field `field` of the class at `kind`.
fn field_getter(py: Python<'_>, kind: usize, field: usize) -> PyResult<Bound<'_, PyCFunction>> {
    PyCFunction::new_closure(py, None, None, move |args, _kwargs| -> PyResult<Py<PyAny>> {
        let py = args.py();
        let slf = args.get_item(0)?;
        let record = slf.cast::<PyRecord>()?.get();
        debug_assert_eq!(record.kind, kind);
        Ok(record.field(py, field)?.unbind())
    })
}

/// The base of sequence records (`SearchResults`, `Listing`): a read-only sequence of their
/// items (`len`, indexing, slicing, iteration), each converted when it is reached.
#[pyclass(frozen, extends = PyRecord, subclass, module = "memcore", name = "SequenceRecord")]
pub(crate) struct PySequenceRecord;

#[pymethods]
impl PySequenceRecord {
    #[new]
    fn new(data: PyRef<'_, RecordData>) -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyRecord::new(data)).add_subclass(Self)
    }

    fn __len__(slf: &Bound<'_, Self>) -> PyResult<usize> {
        Ok(slf.as_super().get().items()?.len())
    }

    fn __getitem__<'py>(
        slf: &Bound<'py, Self>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let record = slf.as_super().get();
        let name = KINDS[record.kind].name;
        let count = record.items()?.len();
        if let Ok(slice) = index.cast::<PySlice>() {
            let indices = slice.indices(isize::try_from(count).unwrap_or(isize::MAX))?;
            let mut items = Vec::with_capacity(indices.slicelength);
            let mut at = indices.start;
            for _ in 0..indices.slicelength {
                // `indices` keeps every position in 0..count.
                items.push(record.item(py, at.unsigned_abs())?);
                at += indices.step;
            }
            return Ok(PyList::new(py, items)?.into_any());
        }
        if !index.is_instance_of::<PyInt>() && !index.get_type().hasattr("__index__")? {
            return Err(PyTypeError::new_err(format!(
                "{name} indices must be integers or slices, not {}",
                type_name(index)
            )));
        }
        let i: isize = index.call_method0("__index__")?.extract()?;
        let position =
            if i < 0 { count.checked_sub(i.unsigned_abs()) } else { Some(i.unsigned_abs()) };
        match position.filter(|&p| p < count) {
            Some(p) => record.item(py, p),
            None => Err(PyIndexError::new_err(format!("{name} index out of range"))),
        }
    }

    fn __iter__(slf: &Bound<'_, Self>) -> RecordIterator {
        RecordIterator { record: slf.as_super().clone().unbind(), next: AtomicUsize::new(0) }
    }
}

/// The base of `Memory`, which can render itself.
#[pyclass(frozen, extends = PyRecord, subclass, module = "memcore", name = "MemoryRecord")]
pub(crate) struct PyMemoryRecord;

#[pymethods]
impl PyMemoryRecord {
    #[new]
    fn new(data: PyRef<'_, RecordData>) -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyRecord::new(data)).add_subclass(Self)
    }

    /// The memory as text: `context` (a block for a prompt), `json` (one JSON object) or
    /// `raw` (the content).
    #[pyo3(signature = (format = "context"))]
    fn render(slf: &Bound<'_, Self>, format: &str) -> PyResult<String> {
        let py = slf.py();
        let format: memcore::Format = format.parse().map_err(|e| to_pyerr(py, &e))?;
        let record = slf.as_super().get();
        let memory: memcore::Memory = serde_json::from_value((*record.value).clone())
            .map_err(|e| PyTypeError::new_err(format!("not a memory record: {e}")))?;
        Ok(memory.render(format))
    }
}

/// Iterates a sequence record, converting one item per step.
#[pyclass(frozen, module = "memcore", name = "RecordIterator")]
pub(crate) struct RecordIterator {
    record: Py<PyRecord>,
    next: AtomicUsize,
}

#[pymethods]
impl RecordIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let record = self.record.get();
        let count = record.items()?.len();
        let at = self.next.fetch_add(1, Ordering::Relaxed);
        if at >= count {
            // Stay exhausted.
            self.next.store(count, Ordering::Relaxed);
            return Ok(None);
        }
        Ok(Some(record.item(py, at)?.unbind()))
    }
}
