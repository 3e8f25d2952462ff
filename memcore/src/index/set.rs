//! [`IndexSet`]: the derived indexes of one store, in one directory.
//!
//! To add an index: implement [`DerivedIndex`] for it, add it as a field here, open it in
//! [`IndexSet::open`] and list it in [`IndexSet::all`]. The write protocol, `verify`, `repair`,
//! `reindex` and `sync` then cover it, and report on it by its name.

use std::path::Path;
use std::sync::Arc;

use super::{DerivedIndex, EmbedderChoice, SemanticIndex, TextIndex};
use crate::Result;
use crate::store::SharedVectors;

/// The derived indexes of one store.
#[derive(Debug)]
pub(crate) struct IndexSet {
    /// Full text (BM25); always available, and the reference the others catch up with.
    pub(crate) text: TextIndex,
    /// Embeddings, when the model is available.
    pub(crate) vectors: SemanticIndex,
}

/// An index set as opened, and whether it must be rebuilt from the store.
pub(crate) struct Opened {
    /// The indexes.
    pub(crate) set: IndexSet,
    /// The full-text index was missing (first open, or deleted) and starts empty.
    pub(crate) missing: bool,
    /// The full-text index was there but could not be opened, and starts empty.
    pub(crate) damaged: bool,
}

impl IndexSet {
    /// Opens (creating) the indexes in `dir`; a missing or damaged full-text index starts
    /// empty and says so, for the caller to rebuild it from the store. The vector index
    /// takes the vectors `shared` keeps (the store's, if any) before embedding.
    pub(crate) fn open(
        dir: &Path,
        embedder: EmbedderChoice,
        shared: Option<Arc<dyn SharedVectors>>,
    ) -> Result<Opened> {
        let text_dir = dir.join("text");
        let absent = !text_dir.exists();
        let (text, missing, damaged) = match TextIndex::open(&text_dir) {
            Ok(text) => (text, absent, false),
            // An index of an older memcore (another schema) is rebuilt like a missing one:
            // an upgrade, not damage to warn about.
            Err(e) => {
                let outdated = e.to_string().contains(super::text::errors::OUTDATED_SCHEMA);
                (TextIndex::create_fresh(&text_dir)?, absent || outdated, !absent && !outdated)
            }
        };
        let vectors = SemanticIndex::new(&dir.join("vectors"), embedder, shared);
        Ok(Opened { set: Self { text, vectors }, missing, damaged })
    }

    /// Every index, the reference index (full text) first.
    pub(crate) fn all(&self) -> [&dyn DerivedIndex; 2] {
        [&self.text, &self.vectors]
    }

    /// The index every other one is compared with when it catches up: the full-text index,
    /// which is always available.
    pub(crate) fn reference(&self) -> &dyn DerivedIndex {
        &self.text
    }
}
