//! Conversions between Python values and the core's plain data: JSON metadata, lists of
//! strings, `key=value` filters and `collection/id` references. Everything here runs with the
//! GIL held, before or after a call into the core, and reports bad input as `TypeError` (wrong
//! type) or `ValidationError` (a `ValueError`: wrong value).

use memcore::{Collection, Filter, MemoryId, Metadata};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde_json::Value;

use crate::errors::invalid;

/// How deep nested metadata may go: deeper is almost surely a cycle.
const MAX_DEPTH: usize = 64;

/// A JSON value as a Python object: dicts, lists, str, int, float, bool, None.
pub(crate) fn json_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let items =
                items.iter().map(|item| json_to_py(py, item)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, json_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// Metadata as a fresh Python dict (a copy: changing it changes nothing stored).
pub(crate) fn metadata_to_py<'py>(
    py: Python<'py>,
    metadata: &Metadata,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in metadata {
        dict.set_item(key, json_to_py(py, value)?)?;
    }
    Ok(dict)
}

/// A Python value as JSON; `what` names it in error messages (`metadata['k'][2]`).
fn py_to_json(value: &Bound<'_, PyAny>, what: &str, depth: usize) -> PyResult<Value> {
    let py = value.py();
    if depth > MAX_DEPTH {
        return Err(invalid(
            py,
            format!("{what} is nested more than {MAX_DEPTH} levels deep"),
            "flatten the metadata (is a container inside itself?)",
        ));
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(i) = value.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = value.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(invalid(
            py,
            format!("{what} is an integer outside the 64-bit range"),
            "store very large numbers as strings",
        ));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        let f = f.value();
        return serde_json::Number::from_f64(f).map(Value::Number).ok_or_else(|| {
            invalid(
                py,
                format!("{what} is {f}, which cannot be stored"),
                "use a finite number, or a string such as 'inf'",
            )
        });
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, item) in value.try_iter()?.enumerate() {
            items.push(py_to_json(&item?, &format!("{what}[{i}]"), depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    if let Ok(mapping) = value.cast::<PyMapping>() {
        let mut map = serde_json::Map::new();
        for item in mapping.items()?.iter() {
            let (key, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let key = mapping_key(&key, what)?;
            let value = py_to_json(&item, &format!("{what}[{}]", py_repr(py, &key)?), depth + 1)?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    Err(PyTypeError::new_err(format!(
        "{what} has type {}, which cannot be stored; use str, int, float, bool, None, \
         list or dict values",
        value.get_type().name()?
    )))
}

fn mapping_key(key: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    match key.cast::<PyString>() {
        Ok(key) => Ok(key.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} has a key of type {}; keys must be str",
            key.get_type().name()?
        ))),
    }
}

/// The `metadata=` argument: `None` or a mapping of str keys (not reserved field names) to
/// JSON-like values.
pub(crate) fn metadata_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Metadata> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(Metadata::new());
    };
    let py = value.py();
    let mapping = value.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "metadata must be a dict (str keys), not {}",
            type_name(value)
        ))
    })?;
    let mut metadata = Metadata::new();
    for item in mapping.items()?.iter() {
        let (key, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        let key = mapping_key(&key, "metadata")?;
        if memcore::FIELD_NAMES.contains(&key.as_str()) {
            return Err(invalid(
                py,
                format!("metadata key {} is a memory field", py_repr(py, &key)?),
                &format!("pass {key} as its own keyword argument, or rename the metadata key"),
            ));
        }
        let json = py_to_json(&item, &format!("metadata[{}]", py_repr(py, &key)?), 1)?;
        metadata.insert(key, json);
    }
    Ok(metadata)
}

/// A list of str argument (`tags`, `related_to`): any iterable of str (list, tuple, set,
/// generator) but not a single str, which would otherwise be taken character by character.
/// pyo3 names the argument in a note on the `TypeError` (shown from Python 3.11 on).
#[derive(Debug, Default)]
pub(crate) struct Strings(pub(crate) Vec<String>);

impl<'a, 'py> FromPyObject<'a, 'py> for Strings {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        strings(&obj.to_owned()).map(Self)
    }
}

fn strings(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(text) = value.cast::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "expected a list of str, not a single str (write [{}])",
            text.repr()?.to_cow()?
        )));
    }
    let iter = value.try_iter().map_err(|_| {
        PyTypeError::new_err(format!("expected a list of str, not {}", type_name(value)))
    })?;
    let mut out = Vec::new();
    for (i, item) in iter.enumerate() {
        let item = item?;
        match item.cast::<PyString>() {
            Ok(s) => out.push(s.to_cow()?.into_owned()),
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "expected a list of str, but item {i} is {}",
                    type_name(&item)
                )));
            }
        }
    }
    Ok(out)
}

/// The `filters=` argument of `list`: one `"key=value"` string, an iterable of them, or a
/// mapping `{key: value | [values]}`. A malformed filter is a `ValidationError`.
#[derive(Debug, Default)]
pub(crate) struct Filters(pub(crate) Vec<Filter>);

impl<'a, 'py> FromPyObject<'a, 'py> for Filters {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        filters(&obj.to_owned()).map(Self)
    }
}

fn filters(value: &Bound<'_, PyAny>) -> PyResult<Vec<Filter>> {
    let py = value.py();
    let core =
        |result: memcore::Result<Filter>| result.map_err(|e| crate::errors::to_pyerr(py, &e));
    if let Ok(expr) = value.cast::<PyString>() {
        return Ok(vec![core(expr.to_cow()?.parse())?]);
    }
    if let Ok(mapping) = value.cast::<PyMapping>() {
        let mut filters = Vec::new();
        for item in mapping.items()?.iter() {
            let (key, values): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let key = mapping_key(&key, "filters")?;
            let values = match values.cast::<PyString>() {
                Ok(one) => vec![one.to_cow()?.into_owned()],
                Err(_) => strings(&values)?,
            };
            filters.push(core(Filter::new(key, values))?);
        }
        return Ok(filters);
    }
    strings(value)?.iter().map(|expr| core(expr.parse())).collect()
}

/// The reference the core takes: `id`, `collection/id` (in `id`), or `id` plus a separate
/// `collection`, each part validated so that the message names what is wrong.
pub(crate) fn reference(py: Python<'_>, id: &str, collection: Option<&str>) -> PyResult<String> {
    let core = |e: memcore::Error| crate::errors::to_pyerr(py, &e);
    match collection {
        None => Ok(id.to_owned()),
        Some(collection) => {
            Collection::new(collection).map_err(core)?;
            MemoryId::new(id).map_err(core)?;
            Ok(format!("{collection}/{id}"))
        }
    }
}

/// A non-negative count (`limit`, `offset`) as `usize`.
pub(crate) fn count_arg(py: Python<'_>, value: i64, name: &str) -> PyResult<usize> {
    usize::try_from(value).map_err(|_| {
        invalid(
            py,
            format!("{name} must be 0 or more, got {value}"),
            &format!("pass a non-negative {name}"),
        )
    })
}

/// The value `name` stands for among a fixed set of string options (`scope`, `backend`,
/// `level`); another string is a `ValidationError` that lists the options.
pub(crate) fn choice<T: Copy>(
    py: Python<'_>,
    what: &str,
    name: &str,
    options: &[(&str, T)],
) -> PyResult<T> {
    if let Some((_, value)) = options.iter().find(|(option, _)| *option == name) {
        return Ok(*value);
    }
    let mut quoted: Vec<String> = options.iter().map(|(option, _)| format!("{option:?}")).collect();
    let last = quoted.pop().unwrap_or_default();
    let listed = if quoted.is_empty() { last } else { format!("{} or {last}", quoted.join(", ")) };
    Err(invalid(py, format!("unknown {what} {name:?}"), &format!("use {what}={listed}")))
}

/// The Python type name of `value`, for messages.
pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// `s` as Python writes it in a `repr` (`'gpu-notes'`).
pub(crate) fn py_repr(py: Python<'_>, s: &str) -> PyResult<String> {
    Ok(PyString::new(py, s).repr()?.to_cow()?.into_owned())
}

/// An optional string as Python writes it in a `repr` (`None` or `'x'`).
pub(crate) fn py_repr_opt(py: Python<'_>, s: Option<&str>) -> PyResult<String> {
    s.map_or_else(|| Ok("None".to_owned()), |s| py_repr(py, s))
}

/// A timestamp as stored in frontmatter: `2025-10-30T14:23:45Z`.
pub(crate) fn iso(timestamp: memcore::Timestamp) -> String {
    timestamp.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A `datetime` argument: timezone-aware, in any timezone (converted to UTC). A naive
/// datetime is refused rather than guessed to be local time or UTC.
#[derive(Debug)]
pub(crate) struct AwareTime(pub(crate) memcore::Timestamp);

impl<'a, 'py> FromPyObject<'a, 'py> for AwareTime {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let datetime = py.import("datetime")?;
        if !obj.is_instance(&datetime.getattr("datetime")?)? {
            return Err(PyTypeError::new_err(format!(
                "expected a datetime.datetime, not {}",
                type_name(&obj.to_owned())
            )));
        }
        if obj.call_method0("utcoffset")?.is_none() {
            return Err(invalid(
                py,
                "the datetime has no timezone",
                "pass an aware datetime, e.g. datetime.now(timezone.utc)",
            ));
        }
        let utc = datetime.getattr("timezone")?.getattr("utc")?;
        Ok(Self(obj.call_method1("astimezone", (utc,))?.extract()?))
    }
}
