//! An embedder the caller brings: a function from texts to vectors, with the model id and
//! dimension it promises. The bindings wrap a Python object or a C function pointer in it.

use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use super::Embedder;
use crate::index::MAX_DIMENSION;
use crate::{Error, Result};

/// The function a [`CallbackEmbedder`] calls: one vector per text, in order, or a message
/// saying why it could not.
pub type EmbedCallback =
    dyn Fn(&[&str]) -> std::result::Result<Vec<Vec<f32>>, String> + Send + Sync;

/// What an embedder callback that failed must do instead.
const RECOVERY: &str = "fix the embedder: it must return one vector of its dimension per text, \
     in order, and not fail (a change of model needs a new model id, and re-embeds the store)";

/// An [`Embedder`] that calls a function: bring any model (a hosted API, another ONNX
/// model, precomputed vectors) to memcore's semantic and hybrid search.
///
/// `model_id` names the model and its pipeline: it is stored with every vector, so vectors
/// of another model are never mixed in (opening a store whose vectors came from another
/// model id re-embeds every memory). The callback may run on any thread that calls memcore,
/// and on more than one at once. What it returns is checked: one vector per text, each of
/// `dimension` finite numbers, not all zero (vectors need not be normalised); anything else
/// (or a panic) is an [`Error::Callback`].
///
/// ```
/// use std::sync::Arc;
/// use memcore::{CallbackEmbedder, Embedder};
///
/// // A toy model: letter counts (a real one would call an embedding API).
/// let embedder = CallbackEmbedder::new("letter-counts-v1", 26, Arc::new(|texts: &[&str]| {
///     Ok(texts.iter().map(|text| {
///         let mut counts = vec![0.0_f32; 26];
///         for b in text.bytes().filter(u8::is_ascii_alphabetic) {
///             counts[usize::from(b.to_ascii_lowercase() - b'a')] += 1.0;
///         }
///         counts
///     }).collect())
/// }))?;
/// assert_eq!(embedder.embed(&["abc"])?[0][..3], [1.0, 1.0, 1.0]);
/// # Ok::<(), memcore::Error>(())
/// ```
pub struct CallbackEmbedder {
    model_id: String,
    dimension: usize,
    callback: Arc<EmbedCallback>,
}

impl CallbackEmbedder {
    /// An embedder of `model_id` whose `callback` returns `dimension`-d vectors.
    ///
    /// # Errors
    ///
    /// [`Error::Validation`] for an empty or blank model id, or a dimension of zero or above
    /// 65,536.
    pub fn new(
        model_id: impl Into<String>,
        dimension: usize,
        callback: Arc<EmbedCallback>,
    ) -> Result<Self> {
        let model_id = model_id.into();
        if model_id.trim().is_empty() {
            return Err(Error::validation(
                "an embedder needs a model id",
                "name the model and its pipeline, e.g. \"text-embedding-3-small\"",
            ));
        }
        if dimension == 0 || dimension > MAX_DIMENSION {
            return Err(Error::validation(
                format!(
                    "the embedder {model_id:?} has dimension {dimension}; it must be 1 to \
                     {MAX_DIMENSION}"
                ),
                "give the length of the vectors it returns, e.g. 384",
            ));
        }
        Ok(Self { model_id, dimension, callback })
    }

    /// The callback's vectors, checked.
    fn checked(&self, texts: &[&str], vectors: Vec<Vec<f32>>) -> Result<Vec<Vec<f32>>> {
        let fail = |what: String| {
            Err(Error::callback(format!("the embedder {:?} {what}", self.model_id), RECOVERY))
        };
        if vectors.len() != texts.len() {
            return fail(format!("returned {} vectors for {} texts", vectors.len(), texts.len()));
        }
        for (i, vector) in vectors.iter().enumerate() {
            if vector.len() != self.dimension {
                return fail(format!(
                    "returned a vector of {} numbers for text {i}; its dimension is {}",
                    vector.len(),
                    self.dimension
                ));
            }
            if !vector.iter().all(|x| x.is_finite()) {
                return fail(format!("returned NaN or infinity for text {i}"));
            }
            let norm: f64 = vector.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
            if norm == 0.0 || !norm.is_finite() {
                return fail(format!("returned a vector of length zero for text {i}"));
            }
        }
        Ok(vectors)
    }
}

impl Debug for CallbackEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackEmbedder")
            .field("model_id", &self.model_id)
            .field("dimension", &self.dimension)
            .finish_non_exhaustive()
    }
}

impl Embedder for CallbackEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| (self.callback)(texts)));
        match outcome {
            Ok(Ok(vectors)) => self.checked(texts, vectors),
            Ok(Err(message)) => Err(Error::callback(
                format!("the embedder {:?} failed: {message}", self.model_id),
                RECOVERY,
            )),
            Err(_) => {
                Err(Error::callback(format!("the embedder {:?} panicked", self.model_id), RECOVERY))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn embedder(callback: Arc<EmbedCallback>) -> CallbackEmbedder {
        CallbackEmbedder::new("test-model", 2, callback).expect("valid")
    }

    #[test]
    fn returns_what_the_callback_gives() {
        let e = embedder(Arc::new(|texts: &[&str]| {
            Ok(texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect())
        }));
        assert_eq!(e.embed(&["ab", "abc"]).unwrap(), vec![vec![2.0, 1.0], vec![3.0, 1.0]]);
        assert!(e.embed(&[]).unwrap().is_empty());
    }

    #[test]
    fn wrong_output_is_a_callback_error_naming_the_fault() {
        let cases: Vec<(Arc<EmbedCallback>, &str)> = vec![
            (Arc::new(|_: &[&str]| Ok(vec![vec![1.0, 0.0]])), "returned 1 vectors for 2 texts"),
            (Arc::new(|t: &[&str]| Ok(vec![vec![1.0]; t.len()])), "its dimension is 2"),
            (Arc::new(|t: &[&str]| Ok(vec![vec![f32::NAN, 0.0]; t.len()])), "NaN or infinity"),
            (Arc::new(|t: &[&str]| Ok(vec![vec![0.0, 0.0]; t.len()])), "length zero for text 0"),
            (Arc::new(|_: &[&str]| Err("quota exceeded".into())), "failed: quota exceeded"),
            (Arc::new(|_: &[&str]| panic!("boom")), "panicked"),
        ];
        for (callback, expected) in cases {
            let err = embedder(callback).embed(&["a", "b"]).unwrap_err();
            assert_eq!(err.category(), crate::Category::Callback, "{err}");
            assert!(err.to_string().contains(expected), "{err} lacks {expected:?}");
            assert!(err.recovery().contains("one vector of its dimension"), "{err}");
        }
    }

    #[test]
    fn a_model_id_and_a_dimension_are_required() {
        let ok: Arc<EmbedCallback> = Arc::new(|_: &[&str]| Ok(Vec::new()));
        assert!(CallbackEmbedder::new(" ", 2, ok.clone()).is_err());
        assert!(CallbackEmbedder::new("m", 0, ok.clone()).is_err());
        assert!(CallbackEmbedder::new("m", MAX_DIMENSION + 1, ok).is_err());
    }
}
