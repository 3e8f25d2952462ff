//! The real embedding model, loaded once per test binary, and a wrapper that counts the texts
//! it embeds (to see what a handle embedded and what it took from elsewhere).
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use memcore::{Embedder, ModelFiles, OnnxEmbedder};

/// The real model, loaded once for the binary.
pub fn model() -> Arc<OnnxEmbedder> {
    static MODEL: OnceLock<Arc<OnnxEmbedder>> = OnceLock::new();
    Arc::clone(MODEL.get_or_init(|| {
        let files = ModelFiles::locate(None).unwrap_or_else(|e| {
            panic!("these tests need the model files ({e}); run scripts/fetch-models")
        });
        Arc::new(OnnxEmbedder::new(&files).unwrap())
    }))
}

/// The real model, counting the texts it embeds, under a model id of the test's choice.
#[derive(Debug)]
pub struct Counted {
    model: Arc<OnnxEmbedder>,
    id: String,
    texts: AtomicUsize,
}

impl Counted {
    /// The model under its own id.
    pub fn new() -> Arc<Self> {
        Self::named(model().model_id())
    }

    /// The model under the id `id`.
    pub fn named(id: &str) -> Arc<Self> {
        Arc::new(Self { model: model(), id: id.to_owned(), texts: AtomicUsize::new(0) })
    }

    /// How many texts it embedded so far.
    pub fn texts(&self) -> usize {
        self.texts.load(Ordering::Relaxed)
    }
}

impl Embedder for Counted {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dimension(&self) -> usize {
        self.model.dimension()
    }

    fn embed(&self, texts: &[&str]) -> memcore::Result<Vec<Vec<f32>>> {
        self.texts.fetch_add(texts.len(), Ordering::Relaxed);
        self.model.embed(texts)
    }
}
