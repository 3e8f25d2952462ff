//! [`PySummarizer`]: a Python callable as the summariser of session compressions. The core
//! runs with the GIL released; each call takes it back (`Python::attach`) for just the
//! callable. What the callable raises is kept and becomes the `__cause__` of the
//! `CallbackError` the compression raises.

use std::sync::{Arc, Mutex, PoisonError};

use memcore::Error;
use memcore::compose::TokenCounter;
use memcore::session::{Summarizer, SummaryMessage, SummaryRequest};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::convert::{json_to_py, type_name};

/// A Python callable `summarize(request: dict) -> str`.
pub(crate) struct PySummarizer {
    name: String,
    callable: Py<PyAny>,
    /// The exception the callable raised last, for the error's cause.
    raised: Mutex<Option<PyErr>>,
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
        Ok(Arc::new(Self { name, callable: callable.clone().unbind(), raised: Mutex::new(None) }))
    }

    /// `err`, with what the callable raised as its cause (if it raised).
    pub(crate) fn with_cause(&self, py: Python<'_>, err: PyErr) -> PyErr {
        let raised = self.raised.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(raised) = raised {
            err.set_cause(py, Some(raised));
        }
        err
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
                    Err(_) => Err(Error::callback(format!(
                        "the summariser {name:?} returned {}, not str",
                        type_name(&text)
                    ))),
                },
                Err(err) => {
                    let message = format!("the summariser {name:?} raised {err}");
                    *self.raised.lock().unwrap_or_else(PoisonError::into_inner) = Some(err);
                    Err(Error::callback(message))
                }
            }
        })
    }
}
