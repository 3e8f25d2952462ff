//! [`ProgressCallback`]: how `reindex` calls a Python progress callback while the rest of the
//! rebuild runs with the GIL released.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::convert::type_name;

/// The `progress` argument of `reindex`: a Python callable `progress(done, total)`, called
/// from inside the core's rebuild, which runs with the GIL released; each call takes the GIL
/// back (`Python::attach`) for just the callback.
///
/// The core's progress hook cannot stop the rebuild, and stopping it half-way would leave the
/// index emptied (searches missing memories until the next reindex). So an exception from the
/// callback (`KeyboardInterrupt` included) is kept, the callback is not called again, the
/// rebuild finishes, and [`ProgressCallback::finish`] raises the exception afterwards.
pub(crate) struct ProgressCallback {
    callback: Option<Py<PyAny>>,
    raised: Option<PyErr>,
}

impl ProgressCallback {
    /// Checks the argument: `None` or a callable.
    pub(crate) fn new(callback: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let callback = callback.filter(|c| !c.is_none());
        if let Some(callback) = callback
            && !callback.is_callable()
        {
            return Err(PyTypeError::new_err(format!(
                "progress must be a callable taking (done, total), not {}",
                type_name(callback)
            )));
        }
        Ok(Self { callback: callback.map(|c| c.clone().unbind()), raised: None })
    }

    /// Passes one progress report to the callback (called by the core, GIL released).
    pub(crate) fn report(&mut self, progress: memcore::Progress) {
        let Some(callback) = &self.callback else { return };
        if self.raised.is_some() {
            return;
        }
        Python::attach(|py| {
            if let Err(err) = callback.bind(py).call1((progress.done, progress.total)) {
                self.raised = Some(err);
            }
        });
    }

    /// The outcome of the rebuild, with the callback's exception raised now if it raised one.
    /// If the rebuild failed as well, its error is raised with the callback's as context.
    pub(crate) fn finish<T>(self, py: Python<'_>, outcome: PyResult<T>) -> PyResult<T> {
        match (outcome, self.raised) {
            (Ok(value), None) => Ok(value),
            (Ok(_), Some(raised)) => Err(raised),
            (Err(err), raised) => {
                if raised.is_some() {
                    err.set_context(py, raised);
                }
                Err(err)
            }
        }
    }
}
