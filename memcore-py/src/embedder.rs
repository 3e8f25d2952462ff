//! A Python object as the embedder of a store (`memcore.open(path, embedder=...)`): a
//! [`CallbackEmbedder`] whose function takes the GIL back (`Python::attach`; the core runs
//! with it released, and may embed on a thread of its own) for just the call.
//!
//! The object has `model_id` (str), `dimension` (int) and `embed(texts: list[str])`, which
//! returns one vector per text: a list of lists of floats, or anything with `tolist()` that
//! gives one (a NumPy array). When `embed` fails (raises, or returns something unusable), a
//! write keeps its memories and embeds them on a later search, which falls back to full text
//! with a warning until it can; a search whose query cannot be embedded raises
//! `CallbackError`, with what `embed` raised as its cause. A `KeyboardInterrupt` or
//! `SystemExit` is raised as itself.

use std::sync::Arc;

use memcore::{CallbackEmbedder, Embedder};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::convert::type_name;
use crate::errors::{callback_raised, to_pyerr};

/// What an embedder object must look like, for error messages.
const SHAPE: &str = "an embedder is an object with `model_id` (str), `dimension` (int) and \
     `embed(texts: list[str])` returning one list of floats per text";

/// The object `embedder` as the store's embedder; a `TypeError` saying what is missing when
/// it lacks the protocol, a `ValidationError` for an empty model id or a dimension of zero.
pub(crate) fn py_embedder(embedder: &Bound<'_, PyAny>) -> PyResult<Arc<dyn Embedder>> {
    let py = embedder.py();
    let attribute = |name: &str| {
        embedder.getattr(name).map_err(|_| {
            PyTypeError::new_err(format!("{SHAPE}; this {} has no `{name}`", type_name(embedder)))
        })
    };
    let model_id: String = attribute("model_id")?
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("{SHAPE}; its `model_id` is not a str")))?;
    let dimension: usize = attribute("dimension")?.extract().map_err(|_| {
        PyTypeError::new_err(format!("{SHAPE}; its `dimension` is not a non-negative int"))
    })?;
    if !attribute("embed")?.is_callable() {
        return Err(PyTypeError::new_err(format!("{SHAPE}; its `embed` is not callable")));
    }
    let object = embedder.clone().unbind();
    let function = move |texts: &[&str]| {
        Python::attach(|py| {
            let vectors = object
                .bind(py)
                .call_method1("embed", (texts.to_vec(),))
                .map_err(callback_raised)?;
            let vectors = match vectors.getattr("tolist") {
                Ok(tolist) => tolist.call0().map_err(callback_raised)?,
                Err(_) => vectors,
            };
            if vectors.is_instance_of::<PyString>() {
                return Err("it returned a str, not one list of floats per text".to_owned());
            }
            vectors.extract::<Vec<Vec<f32>>>().map_err(|_| {
                format!("it returned {}, not one list of floats per text", type_name(&vectors))
            })
        })
    };
    let embedder = CallbackEmbedder::new(model_id, dimension, Arc::new(function))
        .map_err(|e| to_pyerr(py, &e))?;
    Ok(Arc::new(embedder))
}
