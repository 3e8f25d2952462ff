//! Looking after the derived indexes: rebuild, verify, repair, sync, and the state of the
//! vector index's graph.

use super::Memcore;
use crate::index::{GraphStatus, Progress, ReindexReport, RepairReport, SyncReport, VerifyReport};
use crate::{ArchiveRepair, Result};

impl Memcore {
    /// Rebuilds every index from the store; `progress` is called as memories are indexed.
    pub fn reindex(&self, progress: &mut dyn FnMut(Progress)) -> Result<ReindexReport> {
        self.indexed.reindex(progress)
    }

    /// Compares the store with every index by key and content hash, and for a tiered store
    /// reads its cold archive whole and compares it with its index. Changes nothing.
    pub fn verify(&self) -> Result<VerifyReport> {
        let report = self.indexed.verify()?;
        match self.tiers() {
            Some(tiers) => Ok(report.with_cold(tiers.cold().verify()?)),
            None => Ok(report),
        }
    }

    /// Re-indexes what [`Memcore::verify`] finds missing or stale and drops orphaned entries,
    /// index by index; for a tiered store also checks its cold archive and, when it is not
    /// whole or its index differs, repairs it (torn ends cut, damaged frames set aside in
    /// `damaged/`, its index rebuilt).
    pub fn repair(&self) -> Result<RepairReport> {
        let mut report = self.indexed.repair()?;
        if let Some(tiers) = self.tiers() {
            let cold = tiers.cold();
            let repaired =
                if cold.verify()?.consistent() { ArchiveRepair::default() } else { cold.repair()? };
            report.cold = Some(repaired);
        }
        Ok(report)
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
