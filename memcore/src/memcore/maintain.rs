//! Looking after the derived indexes: rebuild, verify, repair, sync, and the state of the
//! vector index's graph.

use super::Memcore;
use crate::Result;
use crate::index::{GraphStatus, Progress, ReindexReport, RepairReport, SyncReport, VerifyReport};

impl Memcore {
    /// Rebuilds every index from the store; `progress` is called as memories are indexed.
    pub fn reindex(&self, progress: &mut dyn FnMut(Progress)) -> Result<ReindexReport> {
        self.indexed.reindex(progress)
    }

    /// Compares the store with every index by key and content hash. Changes nothing.
    pub fn verify(&self) -> Result<VerifyReport> {
        self.indexed.verify()
    }

    /// Re-indexes what [`Memcore::verify`] finds missing or stale and drops orphaned entries,
    /// index by index.
    pub fn repair(&self) -> Result<RepairReport> {
        self.indexed.repair()
    }

    /// Brings the indexes level with changes made behind memcore's back, such as git notes
    /// fetched from another clone: only what changed since the last sync when the backend
    /// has a change feed (git notes), else a full [`Memcore::repair`]. Runs on open for git
    /// notes.
    pub fn sync(&self) -> Result<SyncReport> {
        self.indexed.sync()
    }

    /// What the approximate-search graph of the vector index is doing: off (exact scan, below
    /// 20k vectors), starting (loading or building in the background; searches scan exactly
    /// meanwhile), ready, or failed. `None` until this handle has used the embedding model
    /// (a semantic search or a write), or without the model.
    pub fn vector_graph(&self) -> Option<GraphStatus> {
        self.indexed.indexes().vectors.graph_status()
    }
}
