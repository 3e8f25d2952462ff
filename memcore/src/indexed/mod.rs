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

mod conversation;
mod maintain;
mod write;

use std::path::PathBuf;
use std::time::Duration;

pub use self::maintain::Maintenance;
pub(crate) use self::write::the_one;
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
    /// Memories an upsert batch writes at a time ([`WRITE_SLICE`]; smaller in tests).
    write_slice: usize,
}

/// Memories a large upsert batch writes, embeds and indexes at a time (see
/// [`IndexedStore::put_many`]). A slice holds about 8 KB a memory beyond the memories
/// themselves (their documents, embedding texts, vectors and the store's copy): some 30 MB
/// here. Larger slices save little: each costs one full-text commit (milliseconds) against
/// seconds of embedding or of writing files.
const WRITE_SLICE: usize = 4_096;

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
        let squatted = clear_squatters(&dir)?;
        create_private_dir_all(&dir)?;
        let lock = StoreLock::new(&dir.join("lock"), lock_timeout);
        let journal = Journal::open(&dir.join("journal"))?;
        let opened = IndexSet::open(&dir, embedder, store.shared_vectors())?;
        let indexed =
            Self { store, indexes: opened.set, lock, journal, dir, write_slice: WRITE_SLICE };
        let damaged = opened.damaged || squatted;
        let done = if opened.missing || damaged {
            let report = indexed.reindex(&mut |_| {})?;
            vec![Maintenance::Rebuilt { memories: report.memories, damaged }]
        } else {
            // Work a failed writer left (say, on a full disk) must not lock every reader out:
            // it stays journaled for the next try, and the open says so.
            match indexed.replay() {
                Ok(done) => done.into_iter().collect(),
                Err(e) => vec![Maintenance::Deferred { reason: e.report() }],
            }
        };
        Ok((indexed, done))
    }

    /// Makes upsert batches write `memories` at a time (tests of the slicing).
    #[cfg(test)]
    pub(crate) fn set_write_slice(&mut self, memories: usize) {
        self.write_slice = memories.max(1);
    }

    /// The store, for reads. (Writes go through this type's methods, never to the store.)
    pub(crate) fn store(&self) -> &dyn MemoryStore {
        self.store.as_ref()
    }

    /// The derived indexes, for searches.
    pub(crate) fn indexes(&self) -> &IndexSet {
        &self.indexes
    }

    /// The embedder and vectors for a semantic search, set up on first use and brought
    /// level with the full-text index when they may lag (when the level stamp is missing or
    /// names another log generation: after a change they could not take, in any process, or
    /// a cleared log): what was written while the model was unavailable, or by a process
    /// without it, or before a model change, is embedded, and what that took is reported.
    /// While another writer holds the index lock, the search goes ahead and the vectors catch
    /// up on a later one: a search never waits for a writer. `Err` says why semantic search
    /// is unavailable.
    pub(crate) fn semantic(
        &self,
    ) -> std::result::Result<(&Semantic, Option<Maintenance>), Unavailable> {
        let semantic = self.indexes.vectors.searchable()?;
        if self.indexes.vectors.is_level() {
            return Ok((semantic, None));
        }
        let lagging = |e: crate::Error| {
            Unavailable(format!("the vector index could not catch up: {}", e.report()))
        };
        // Writers change the vectors (and say when they lag) only under the index lock, so
        // holding it from the comparison until the vectors are marked level leaves no gap.
        let Some(_guard) = self.lock.try_acquire().map_err(lagging)? else {
            return Ok((semantic, None));
        };
        let done = self.catch_up_locked(&self.indexes.vectors).map_err(lagging)?;
        self.indexes.vectors.mark_level().map_err(lagging)?;
        Ok((semantic, done))
    }
}

/// The directories of the index (itself, its full-text and vector indexes, its journal).
const INDEX_DIRS: [&str; 3] = ["text", "vectors", "journal"];

/// Removes whatever is not a directory where the index or one of its directories belongs
/// (a file, a symbolic link: damage, or a store from an untrusted clone), so that the index
/// is rebuilt there; the index is derived data, so nothing is lost. Says whether it removed
/// anything.
fn clear_squatters(dir: &std::path::Path) -> Result<bool> {
    let mut removed = false;
    let paths = std::iter::once(dir.to_path_buf()).chain(INDEX_DIRS.iter().map(|d| dir.join(d)));
    for path in paths {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.is_dir() => {
                std::fs::remove_file(&path).map_err(|e| {
                    crate::Error::io(format!("removing {} to rebuild the index", path.display()), e)
                })?;
                removed = true;
            }
            _ => {}
        }
    }
    Ok(removed)
}
