//! Python values to and from JSON: how keyword arguments become the core's request records
//! (checked there, in one place for every binding) and how plain JSON results come back.
//! Everything here runs with the GIL held, before or after a call into the core.

use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple,
};
use serde_json::{Map, Value};

use crate::errors::{invalid, unfit};

/// How deep nested arguments may go: deeper is almost surely a cycle.
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

/// Keyword arguments as the fields of a request record; an argument passed as `None` is left
/// out (the record's default applies).
pub(crate) fn kwargs_json(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Map<String, Value>> {
    let mut fields = Map::new();
    for (key, value) in kwargs.into_iter().flat_map(|kwargs| kwargs.iter()) {
        if value.is_none() {
            continue;
        }
        let key: String = key.extract()?;
        let json = py_to_json(&value, &key, 1)?;
        fields.insert(key, json);
    }
    Ok(fields)
}

/// A Python value as JSON; `what` names it in error messages (`metadata['k'][2]`).
///
/// `datetime`s must be timezone-aware (they become RFC 3339 text); any iterable other than a
/// string, bytes or a mapping (a tuple, a set, a generator) becomes a list; a NumPy array or
/// scalar of numbers becomes what its `tolist()` returns.
pub(crate) fn py_to_json(value: &Bound<'_, PyAny>, what: &str, depth: usize) -> PyResult<Value> {
    let py = value.py();
    if depth > MAX_DEPTH {
        return Err(invalid(
            py,
            format!("{what} is nested more than {MAX_DEPTH} levels deep"),
            "flatten the value (is a container inside itself?)",
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
                "use a finite number (metadata can keep NaN or infinity as text, e.g. 'inf')",
            )
        });
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if is_datetime(value)? {
        return datetime_json(value, what);
    }
    if let Ok(mapping) = value.cast::<PyMapping>() {
        let mut map = Map::new();
        for item in mapping.items()?.iter() {
            let (key, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let Ok(key) = key.cast::<PyString>().map(|k| k.to_cow().map(|k| k.into_owned())) else {
                return Err(unfit(
                    py,
                    format!("{what} has a key of type {}; keys must be str", type_name(&key)),
                    "use str keys in mappings",
                ));
            };
            let key = key?;
            let json = py_to_json(&item, &format!("{what}[{}]", py_repr(py, &key)?), depth + 1)?;
            map.insert(key, json);
        }
        return Ok(Value::Object(map));
    }
    let textual = value.is_instance_of::<PyBytes>() || value.is_instance_of::<PyByteArray>();
    let listed = value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>();
    if !textual && !listed && is_numeric_array(value) {
        return py_to_json(&value.call_method0("tolist")?, what, depth + 1);
    }
    if !textual && (listed || value.hasattr("__iter__")?) {
        let mut items = Vec::new();
        for (i, item) in value.try_iter()?.enumerate() {
            items.push(py_to_json(&item?, &format!("{what}[{i}]"), depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    Err(unfit(
        py,
        format!("{what} has type {}, which memcore does not take", type_name(value)),
        "use str, int, float, bool, None, datetime, a list or a dict",
    ))
}

/// Whether `value` is a NumPy array or scalar of numbers (a vector, a `float32`): an object
/// with `tolist()` and a `dtype` of kind bool, int, unsigned or float. Other NumPy kinds
/// (dates, text, objects) are left to the other rules.
fn is_numeric_array(value: &Bound<'_, PyAny>) -> bool {
    let kind = value.getattr("dtype").and_then(|dtype| dtype.getattr("kind"));
    let numeric = kind
        .and_then(|kind| kind.extract::<String>())
        .is_ok_and(|kind| matches!(kind.as_str(), "b" | "i" | "u" | "f"));
    numeric && value.hasattr("tolist").unwrap_or(false)
}

/// Whether `value` is a `datetime.datetime`.
fn is_datetime(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    let datetime = value.py().import("datetime")?.getattr("datetime")?;
    value.is_instance(&datetime)
}

/// An aware `datetime` as RFC 3339 text in UTC; a naive one is refused rather than guessed to
/// be local time or UTC.
fn datetime_json(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let py = value.py();
    if value.call_method0("utcoffset")?.is_none() {
        return Err(invalid(
            py,
            format!("{what} is a datetime without a timezone"),
            "pass an aware datetime, e.g. datetime.now(timezone.utc), or an ISO 8601 string \
             with an offset",
        ));
    }
    let utc = py.import("datetime")?.getattr("timezone")?.getattr("utc")?;
    let text: String =
        value.call_method1("astimezone", (utc,))?.call_method0("isoformat")?.extract()?;
    Ok(Value::String(text))
}

/// The value `name` stands for among a fixed set of string options (`scope`, `backend`); another
/// string is a `ValidationError` that lists the options.
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
