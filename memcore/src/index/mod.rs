//! Derived, rebuildable indexes over a store: full-text (tantivy) and vectors (exact scan and
//! hnsw_rs), kept beside the store in `.memcore/index/`, with the journal that keeps them in
//! step with the store across crashes.

mod doc;
mod journal;
mod lifecycle;
mod text;
mod unsynced_dir;
mod vector;

pub(crate) use doc::{DocFilter, DocMeta, IndexDoc, content_hash, doc_key};
pub(crate) use journal::Entry as JournalEntry;
pub(crate) use lifecycle::{EmbedderChoice, Indexes};
pub use lifecycle::{IndexDiff, Progress, RepairReport, SyncReport, VerifyReport};
pub(crate) use text::TextIndex;
pub use vector::GraphStatus;
pub(crate) use vector::VectorIndex;
