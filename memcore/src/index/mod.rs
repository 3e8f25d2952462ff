//! Derived, rebuildable indexes over a store, kept beside it (`<private dir>/index/`): the
//! full-text index ([`TextIndex`], tantivy), the vector index ([`SemanticIndex`]: embeddings
//! over exact scan and hnsw_rs), and the journal that keeps them in step with the store across
//! crashes.
//!
//! Every index implements [`DerivedIndex`]: it takes [`IndexDoc`]s and keys, never the store,
//! so the write protocol ([`crate::indexed`]) can stage, publish, verify, repair and rebuild
//! all of them the same way and report on each by name. [`IndexSet`] holds one store's
//! indexes: to add an index, implement the trait and add it to the set.

mod doc;
mod journal;
mod report;
mod semantic;
mod set;
pub(crate) mod text;
pub(crate) mod unsynced_dir;
mod vector;

use std::collections::HashMap;
use std::fmt;

pub(crate) use doc::{
    DocFilter, DocMeta, EMBEDDED_TEXT_REVISION, GivenVector, IndexDoc, content_hash,
    neighbour_terms, shifted_turn_term, turn_term, turn_text,
};
pub(crate) use journal::{Entry as JournalEntry, Journal};
pub use report::{
    IndexCheck, IndexDiff, IndexRebuild, IndexRepair, Progress, ReindexReport, RepairReport,
    SyncReport, VerifyReport,
};
pub(crate) use semantic::{EmbedderChoice, Semantic, SemanticIndex};
pub(crate) use set::IndexSet;
pub(crate) use text::TextIndex;
pub use vector::GraphStatus;
pub(crate) use vector::{
    MAX_DIMENSION, ModelChanged, VectorIndex, remove_level_stamp, scalable_norm,
};

use crate::{MemoryRef, Result};

/// Why an index cannot serve or take entries now (the vector index without its embedding
/// model); everything else keeps working, and searches say why in a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unavailable(pub(crate) String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How an index took a change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub(crate) enum Applied {
    /// The entries are in the index.
    Done,
    /// The index is left behind (say, the embedding model failed) and catches up from the
    /// store the next time it is used; the string says why. The change stands everywhere else.
    Lagging(String),
}

/// A derived index: data computed from memories, rebuildable from the store at any time.
///
/// Implementations hold no store and never read one: they are given [`IndexDoc`]s (built from
/// memories by the write protocol) and keys. Writes are serialised across processes by the
/// caller (it holds the store's index lock); reads may run at any time.
pub(crate) trait DerivedIndex: Send + Sync + fmt::Debug {
    /// The index's name in reports: `text`, `vector`, ...
    fn name(&self) -> &'static str;

    /// Whether the index can take and serve entries now (setting it up on first use, which
    /// for the vector index means loading the embedding model).
    fn ready(&self) -> std::result::Result<(), Unavailable>;

    /// Prepares entries for `docs` without showing them, while the store writes the memories
    /// on another thread; [`Staged::publish`] shows them once the write is durable, dropping
    /// the result discards them. Failures are kept for `publish` to report, so that the store
    /// write goes ahead either way (the journal covers a failed publish).
    fn stage<'a>(&'a self, docs: &[IndexDoc]) -> Box<dyn Staged + 'a>;

    /// Adds or replaces the entries of `upserts` and removes those of `removed` (absent keys
    /// are fine); visible to searches when it returns.
    fn apply(&self, upserts: &[IndexDoc], removed: &[MemoryRef]) -> Result<Applied>;

    /// Removes every entry.
    fn clear(&self) -> Result<()>;

    /// Every entry's key with the content hash of the memory it was made from (see
    /// [`content_hash`]), for `verify`.
    fn hashes(&self) -> Result<HashMap<MemoryRef, String>>;

    /// Sees what other processes wrote since the last refresh.
    fn refresh(&self) -> Result<()>;

    /// What the entries were made with, where that matters (the embedding model of the
    /// vectors); shown by `verify`.
    fn built_with(&self) -> Option<String> {
        None
    }

    /// How many memories a rebuild hands this index at a time (and reports progress after):
    /// large for cheap indexes (fewer commits), small for costly ones (steady progress).
    fn rebuild_batch(&self) -> usize {
        1_000
    }
}

/// Entries one index prepared while the store wrote their memories; see
/// [`DerivedIndex::stage`].
pub(crate) trait Staged {
    /// Shows the staged entries for the memories as the store keeps them: `docs` are their
    /// documents now, in staging order, of which those at `changed` differ from what was
    /// staged (a replacement keeps its creation time; a store may assign ids); the entries of
    /// `replaced` keys (staged under a key the store did not keep) are removed.
    fn publish(
        self: Box<Self>,
        docs: &[IndexDoc],
        changed: &[usize],
        replaced: &[MemoryRef],
    ) -> Result<Applied>;
}
