//! [`PySummarizer`]: a Python callable as the summariser of session compressions. The core
//! runs with the GIL released; each call takes it back (`Python::attach`) for just the
//! callable. What the callable raises is kept (per thread: the core calls the summariser on
//! the caller's thread) and becomes the `__cause__` of the `CallbackError` the compression
//! raises; a `KeyboardInterrupt` or `SystemExit` is raised as itself.

use std::cell::RefCell;
use std::sync::Arc;

use memcore::Error;
use memcore::compose::TokenCounter;
use memcore::session::{Summarizer, SummaryMessage, SummaryRequest};
use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::convert::{json_to_py, type_name};

/// A Python callable `summarize(request: dict) -> str`.
pub(crate) struct PySummarizer {
    name: String,
    callable: Py<PyAny>,
}

thread_local! {
    /// The exception a summariser callable raised on this thread, until the failed call's
    /// error takes it as its cause.
    static RAISED: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// `err` (the error of a call that may have run a summariser callable) with what the callable
/// raised as its cause; an exception that is not an `Exception` (`KeyboardInterrupt`,
/// `SystemExit`) replaces it. Takes the exception, so none outlives its call.
pub(crate) fn with_cause(py: Python<'_>, err: PyErr) -> PyErr {
    match RAISED.with(|slot| slot.borrow_mut().take()) {
        Some(raised) if !raised.is_instance_of::<PyException>(py) => raised,
        Some(raised) => {
            err.set_cause(py, Some(raised));
            err
        }
        None => err,
    }
}

impl std::fmt::Debug for PySummarizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PySummarizer").field("name", &self.name).finish_non_exhaustive()
    }
}

impl PySummarizer {
    /// Checks the argument: a callable, named by `name` or its `__name__`.
    pub(crate) fn new(callable: &Bound<'_, PyAny>, name: Option<&str>) -> PyResult<Arc<Self>> {
        if !callable.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "a summarizer must be a callable taking the request dict and returning str, \
                 or one of \"auto\", \"extractive\", \"callback\"; not {}",
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
        Ok(Arc::new(Self { name, callable: callable.clone().unbind() }))
    }
}

impl Summarizer for PySummarizer {
    fn name(&self) -> &str {
        &self.name
    }

    fn summarize(
        &self,
        request: &SummaryRequest,
        _counter: &dyn TokenCounter,
    ) -> memcore::Result<Vec<SummaryMessage>> {
        let name = &self.name;
        let value = serde_json::to_value(request).map_err(|e| {
            Error::callback(format!("the summary request could not be written: {e}"))
        })?;
        Python::attach(|py| {
            let outcome =
                json_to_py(py, &value).and_then(|arg| self.callable.bind(py).call1((arg,)));
            match outcome {
                Ok(text) => match text.extract::<String>() {
                    Ok(text) => Ok(vec![SummaryMessage::new("summary", text)]),
                    Err(_) if text.is_instance_of::<PyString>() => Err(Error::callback(format!(
                        "the summariser {name:?} returned a str that is not valid Unicode \
                         (lone surrogates)"
                    ))),
                    Err(_) => Err(Error::callback(format!(
                        "the summariser {name:?} returned {}, not str",
                        type_name(&text)
                    ))),
                },
                Err(err) => {
                    let message = format!("the summariser {name:?} raised {err}");
                    RAISED.with(|slot| *slot.borrow_mut() = Some(err));
                    Err(Error::callback(message))
                }
            }
        })
    }
}
