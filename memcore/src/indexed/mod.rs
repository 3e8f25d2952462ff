//! [`IndexedStore`]: a store and its derived indexes, kept level by one write protocol.
//!
//! This is the one place that writes memories. Every change goes: take the index lock,
//! journal the keys it touches (durably), stage each index's entries while the store writes
//! (on a second thread), publish them once the store write is durable, clear the journal
//! record. A crash anywhere in between leaves records that the next open or search replays
//! from the store, which is idempotent; a write the store refused leaves nothing behind.
//! `put`, `update`, `delete`, `restore` and every engine that writes go through
//! [`IndexedStore::write`] (see `write.rs`); maintenance (replay, reindex, verify, repair,
//! sync, catch-up) is in `maintain.rs`.
//!
//! Lock order is always the index lock, then the store's own lock. Readers take no lock.

mod maintain;
mod write;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use self::maintain::Maintenance;
use crate::Result;
use crate::index::{EmbedderChoice, IndexSet, Journal, Semantic, Unavailable};
use crate::store::MemoryStore;
use crate::store::fsutil::create_private_dir_all;
use crate::store::lock::StoreLock;

/// A store with its derived indexes.
#[derive(Debug)]
pub(crate) struct IndexedStore {
    /// The source of truth.
    store: Box<dyn MemoryStore>,
    /// The derived indexes.
    indexes: IndexSet,
    /// Held by writers from journaling to clearing the journal.
    lock: StoreLock,
    /// Records of index work that may lag the store.
    journal: Journal,
    /// `<private dir>/index`.
    dir: PathBuf,
    /// Whether the vector index was brought level with the full-text index since this
    /// handle set it up.
    vectors_level: AtomicBool,
}

impl IndexedStore {
    /// Opens the indexes of `store` (in its private directory's `index/`) and brings them
    /// level: a missing or damaged full-text index is rebuilt from the store, interrupted work
    /// is replayed. Returns what that took, if anything.
    pub(crate) fn open(
        store: Box<dyn MemoryStore>,
        embedder: EmbedderChoice,
        lock_timeout: Duration,
    ) -> Result<(Self, Vec<Maintenance>)> {
        let dir = store.private_dir().join("index");
        create_private_dir_all(&dir)?;
        let lock = StoreLock::new(&dir.join("lock"), lock_timeout);
        let journal = Journal::open(&dir.join("journal"))?;
        let opened = IndexSet::open(&dir, embedder)?;
        let indexed = Self {
            store,
            indexes: opened.set,
            lock,
            journal,
            dir,
            vectors_level: AtomicBool::new(false),
        };
        let done = if opened.needs_rebuild {
            let report = indexed.reindex(&mut |_| {})?;
            vec![Maintenance::Rebuilt { memories: report.memories }]
        } else {
            indexed.replay()?.into_iter().collect()
        };
        Ok((indexed, done))
    }

    /// The store, for reads. (Writes go through this type's methods, never to the store.)
    pub(crate) fn store(&self) -> &dyn MemoryStore {
        self.store.as_ref()
    }

    /// The derived indexes, for searches.
    pub(crate) fn indexes(&self) -> &IndexSet {
        &self.indexes
    }

    /// The embedder and vectors for a semantic search, set up on first use and then brought
    /// level with the full-text index once per handle (embedding what was written while the
    /// model was unavailable, or by a process without it, or before a model change); what
    /// that took is reported. `Err` says why semantic search is unavailable.
    pub(crate) fn semantic(
        &self,
    ) -> std::result::Result<(&Semantic, Option<Maintenance>), Unavailable> {
        let semantic = self.indexes.vectors.semantic()?;
        if self.vectors_level.swap(true, Ordering::AcqRel) {
            return Ok((semantic, None));
        }
        match self.catch_up(&self.indexes.vectors) {
            Ok(done) => Ok((semantic, done)),
            Err(e) => {
                self.vectors_level.store(false, Ordering::Release);
                Err(Unavailable(format!("the vector index could not catch up: {}", e.report())))
            }
        }
    }
}
