//! A Python callable as the summariser of session compressions: a
//! [`CallbackSummarizer`] whose function takes the GIL back (`Python::attach`; the core runs
//! with it released) for just the call. What the callable raises is kept
//! ([`crate::errors::callback_raised`]) and becomes the `__cause__` of the `CallbackError`
//! the compression raises; a `KeyboardInterrupt` or `SystemExit` is raised as itself.

use std::sync::Arc;

use memcore::session::{CallbackSummarizer, Summarizer};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::convert::{json_to_py, type_name};
use crate::errors::callback_raised;

/// The callable `summarize(request: dict) -> str` as a summariser named `name` (default: its
/// `__name__`); anything else is a `TypeError`.
pub(crate) fn py_summarizer(
    callable: &Bound<'_, PyAny>,
    name: Option<&str>,
) -> PyResult<Arc<dyn Summarizer>> {
    if !callable.is_callable() {
        return Err(PyTypeError::new_err(format!(
            "a summarizer must be a callable taking the request dict and returning str, or one \
             of \"auto\", \"extractive\", \"callback\"; not {}",
            type_name(callable)
        )));
    }
    let name = match name {
        Some(name) => name.to_owned(),
        None => callable
            .getattr("__name__")
            .and_then(|n| n.extract::<String>())
            .unwrap_or_else(|_| "python".to_owned()),
    };
    let callable = callable.clone().unbind();
    let function = move |request: &str| {
        let value: serde_json::Value = serde_json::from_str(request).map_err(|e| e.to_string())?;
        Python::attach(|py| {
            let outcome = json_to_py(py, &value).and_then(|arg| callable.bind(py).call1((arg,)));
            match outcome {
                Ok(text) => match text.extract::<String>() {
                    Ok(text) => Ok(text),
                    Err(_) if text.is_instance_of::<PyString>() => {
                        Err("it returned a str that is not valid Unicode (lone surrogates)"
                            .to_owned())
                    }
                    Err(_) => Err(format!("it returned {}, not str", type_name(&text))),
                },
                Err(err) => Err(callback_raised(err)),
            }
        })
    };
    Ok(Arc::new(CallbackSummarizer::new(name, Arc::new(function))))
}
