//! The purge audit log, `audit.jsonl` beside the timeline: one line per purge, saying who
//! purged what, when, why, and how much went from each tier. It names memories and sessions,
//! never their text.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::jsonl;
use super::requests::AuditRecord;
use crate::Result;
use crate::store::lock::StoreLock;

/// A store's audit log.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    lock: StoreLock,
}

impl AuditLog {
    /// The audit log at `path` (created by the first append); writers wait up to
    /// `lock_timeout` for each other.
    pub fn open(path: impl AsRef<Path>, lock_timeout: Duration) -> Self {
        let path = path.as_ref().to_path_buf();
        let lock = StoreLock::new(&path.with_extension("lock"), lock_timeout);
        Self { path, lock }
    }

    /// Appends `record`, durably.
    pub fn append(&self, record: &AuditRecord) -> Result<()> {
        let _guard = self.lock.acquire()?;
        jsonl::append(&self.path, record, "audit record")
    }

    /// Every record, oldest first, and how many lines could not be read.
    pub fn records(&self) -> Result<(Vec<AuditRecord>, usize)> {
        jsonl::read(&self.path)
    }
}
