//! The arguments of `Memcore.put`, parsed once for `put` and for every `put_many` item.
//!
//! [`put_fields`] is a pyfunction with `put`'s full signature; `put` forwards its arguments to
//! it, and `put_many` calls it with each mapping as keyword arguments (or a str as the
//! content). pyo3's argument parsing therefore does every check for both, with the same
//! messages: an unknown key is an "unexpected keyword argument", a wrong type a `TypeError`
//! naming the argument, a wrong value a `ValidationError`.

use memcore::{NewMemory, PutMode, Status};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCFunction, PyDict, PyMapping, PyString, PyTuple};

use crate::convert::{AwareTime, Strings, metadata_arg, type_name};
use crate::errors::{invalid, to_pyerr};

/// A status argument (`None` or a status name) as the core's [`Status`].
pub(crate) fn parse_status(py: Python<'_>, status: Option<&str>) -> PyResult<Option<Status>> {
    status.map(str::parse::<Status>).transpose().map_err(|e| to_pyerr(py, &e))
}

/// One memory to store and how, as `put` takes it. Internal: never seen by users.
#[pyclass(frozen, module = "memcore", name = "_PutFields")]
pub(crate) struct PutFields {
    pub(crate) new: NewMemory,
    pub(crate) mode: PutMode,
}

/// Named `put` so that pyo3's messages ("put() got an unexpected keyword argument ...") read
/// the same whether they come from `put` or from a `put_many` item.
#[pyfunction]
#[pyo3(
    name = "put",
    signature = (
        content, *, id=None, collection=None, title=None, summary=None, r#type=None,
        status=None, tags=Strings::default(), category=None, context=None,
        related_to=Strings::default(), project=None, priority=None, created_by=None,
        importance=None, metadata=None, created_at=None, create_only=false,
    )
)]
#[allow(clippy::too_many_arguments)]
fn put_fields(
    py: Python<'_>,
    content: String,
    id: Option<String>,
    collection: Option<String>,
    title: Option<String>,
    summary: Option<String>,
    r#type: Option<String>,
    status: Option<&str>,
    tags: Strings,
    category: Option<String>,
    context: Option<String>,
    related_to: Strings,
    project: Option<String>,
    priority: Option<String>,
    created_by: Option<String>,
    importance: Option<f64>,
    metadata: Option<&Bound<'_, PyAny>>,
    created_at: Option<AwareTime>,
    create_only: bool,
) -> PyResult<PutFields> {
    let mut new = NewMemory::new(content);
    new.id = id;
    new.collection = collection;
    new.title = title;
    new.summary = summary;
    new.kind = r#type;
    new.status = parse_status(py, status)?;
    new.tags = tags.0;
    new.category = category;
    new.context = context;
    new.related_to = related_to.0;
    new.project = project;
    new.priority = priority;
    new.created_by = created_by;
    new.importance = importance;
    new.metadata = metadata_arg(metadata)?;
    new.created_at = created_at.map(|t| t.0);
    let mode = if create_only { PutMode::CreateOnly } else { PutMode::Upsert };
    Ok(PutFields { new, mode })
}

static PUT_FIELDS: PyOnceLock<Py<PyCFunction>> = PyOnceLock::new();

/// Parses `put`-style arguments: positional `args` (the content) and keyword `kwargs`.
pub(crate) fn parse(
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<(NewMemory, PutMode)> {
    let py = args.py();
    let function = PUT_FIELDS
        .get_or_try_init(py, || Ok::<_, PyErr>(wrap_pyfunction!(put_fields, py)?.unbind()))?;
    let parsed = function.bind(py).call(args, kwargs)?;
    let fields = parsed.cast::<PutFields>()?.get();
    Ok((fields.new.clone(), fields.mode))
}

/// The memories of a `put_many` call: each item a str (the content) or a mapping with `put`'s
/// keyword arguments (`content` required). `create_only` is refused: `put_many` replaces.
pub(crate) fn parse_many(items: &Bound<'_, PyAny>) -> PyResult<Vec<NewMemory>> {
    let py = items.py();
    if items.is_instance_of::<PyString>() || items.cast::<PyMapping>().is_ok() {
        return Err(PyTypeError::new_err(format!(
            "put_many takes an iterable of items (str or mapping), not a single {}; \
             wrap it in a list",
            type_name(items)
        )));
    }
    let iter = items.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "put_many takes an iterable of str or mappings, not {}",
            type_name(items)
        ))
    })?;
    let mut memories = Vec::new();
    for (i, item) in iter.enumerate() {
        let item = item?;
        let (new, mode) = parse_item(&item).map_err(|err| at_item(py, err, i))?;
        if mode == PutMode::CreateOnly {
            return Err(invalid(
                py,
                format!("put_many item {i}: create_only is not supported by put_many"),
                "put_many replaces existing memories; store a memory that must be new with \
                 put(..., create_only=True)",
            ));
        }
        memories.push(new);
    }
    Ok(memories)
}

fn parse_item(item: &Bound<'_, PyAny>) -> PyResult<(NewMemory, PutMode)> {
    let py = item.py();
    if item.is_instance_of::<PyString>() {
        return parse(&PyTuple::new(py, [item])?, None);
    }
    let Ok(mapping) = item.cast::<PyMapping>() else {
        return Err(PyTypeError::new_err(format!(
            "expected a str (the content) or a mapping of put's keyword arguments, not {}",
            type_name(item)
        )));
    };
    let kwargs = PyDict::new(py);
    kwargs.update(mapping)?;
    parse(&PyTuple::empty(py), Some(&kwargs))
}

/// `err` with its message prefixed by the item's position; type and attributes unchanged.
fn at_item(py: Python<'_>, err: PyErr, index: usize) -> PyErr {
    let value = err.value(py);
    if let Ok(message) = value.str() {
        // Only fails for an exception whose `args` cannot be set, which then keeps its own.
        let _ = value.setattr("args", (format!("put_many item {index}: {message}"),));
    }
    err
}
