//! What index maintenance reports: [`VerifyReport`], [`RepairReport`], [`ReindexReport`] and
//! [`SyncReport`], each with one entry per derived index by name, and [`Progress`].

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorInfo, serialize_infos};
use crate::{Error, MemoryRef};

/// How one index differs from the store, by key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct IndexDiff {
    /// In the store, not in the index.
    pub missing: Vec<MemoryRef>,
    /// In the index, not in the store.
    pub orphaned: Vec<MemoryRef>,
    /// In both, but the index holds another version.
    pub mismatched: Vec<MemoryRef>,
}

impl IndexDiff {
    /// Whether the index matches the store.
    pub fn is_clean(&self) -> bool {
        self.missing.is_empty() && self.orphaned.is_empty() && self.mismatched.is_empty()
    }

    /// The difference between `expected` (key -> content hash, the store's) and `found` (an
    /// index's), each list sorted.
    pub(crate) fn between(
        expected: &HashMap<MemoryRef, String>,
        found: &HashMap<MemoryRef, String>,
    ) -> Self {
        let mut diff = Self::default();
        for (key, hash) in expected {
            match found.get(key) {
                None => diff.missing.push(key.clone()),
                Some(indexed) if indexed != hash => diff.mismatched.push(key.clone()),
                Some(_) => {}
            }
        }
        diff.orphaned = found.keys().filter(|key| !expected.contains_key(*key)).cloned().collect();
        diff.missing.sort();
        diff.orphaned.sort();
        diff.mismatched.sort();
        diff
    }

    /// The keys to index again (missing or stale) and to drop (orphaned).
    pub(crate) fn stale_and_orphaned(&self) -> (Vec<MemoryRef>, Vec<MemoryRef>) {
        let stale = self.missing.iter().chain(&self.mismatched).cloned().collect();
        (stale, self.orphaned.clone())
    }
}

/// One index as [`crate::Memcore::verify`] found it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct IndexCheck {
    /// How the index differs from the store (empty when it was not checked).
    #[serde(flatten)]
    pub diff: IndexDiff,
    /// Why the index was not checked (the vector index without its model), if it was not.
    pub unavailable: Option<String>,
    /// What its entries were made with, where that matters (the vector index's model).
    pub built_with: Option<String>,
}

impl IndexCheck {
    /// Whether the check found no difference. An index that could not be checked has none:
    /// [`IndexCheck::unavailable`] says so.
    pub fn is_clean(&self) -> bool {
        self.diff.is_clean()
    }
}

/// What [`crate::Memcore::verify`] found: the store against every derived index.
#[derive(Debug, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Memories in the store (readable ones).
    pub store_count: usize,
    /// Each index by name (`text`, `vector`, ...).
    pub indexes: BTreeMap<String, IndexCheck>,
    /// Whether every index that was checked matches the store (`repair` fixes it if not).
    pub consistent: bool,
    /// Store files that could not be read (each names its file); they are not indexed.
    #[serde(serialize_with = "serialize_infos")]
    #[schemars(with = "Vec<ErrorInfo>")]
    pub unreadable: Vec<Error>,
    /// Things that do not stop memcore but deserve a look: memory files whose frontmatter
    /// names another id or collection than their place.
    pub warnings: Vec<String>,
    /// A tiered store's cold archive: its segments read whole and its own full-text index
    /// compared with them (counted in [`VerifyReport::consistent`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cold: Option<crate::ArchiveCheck>,
}

impl VerifyReport {
    /// A report on `indexes`, deciding [`VerifyReport::consistent`].
    pub(crate) fn new(
        store_count: usize,
        indexes: BTreeMap<String, IndexCheck>,
        unreadable: Vec<Error>,
        warnings: Vec<String>,
    ) -> Self {
        let consistent = indexes.values().all(IndexCheck::is_clean);
        Self { store_count, indexes, consistent, unreadable, warnings, cold: None }
    }

    /// The same report with the check of a tiered store's cold archive.
    pub(crate) fn with_cold(mut self, cold: crate::ArchiveCheck) -> Self {
        self.consistent &= cold.consistent();
        self.cold = Some(cold);
        self
    }

    /// Whether every index that was checked matches the store.
    pub fn is_consistent(&self) -> bool {
        self.consistent
    }

    /// The check of the index called `name`, if the store has one.
    pub fn index(&self, name: &str) -> Option<&IndexCheck> {
        self.indexes.get(name)
    }
}

/// What [`crate::Memcore::repair`] did to one index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct IndexRepair {
    /// Entries (re)made: missing from the index, or made from another version.
    pub reindexed: usize,
    /// Entries without a memory, removed.
    pub removed: usize,
}

/// What [`crate::Memcore::repair`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct RepairReport {
    /// Memories (re)indexed in at least one index.
    pub reindexed: usize,
    /// Index entries without a memory, removed from at least one index.
    pub removed: usize,
    /// Each index by name.
    pub indexes: BTreeMap<String, IndexRepair>,
    /// What interrupted writes left in the store, removed: temp files (each holding a
    /// memory's text) in a file store, vectors of deleted memories in PostgreSQL.
    pub leftovers: usize,
    /// What repairing a tiered store's cold archive did: torn ends cut, damaged frames set
    /// aside (in `damaged/`), its index rebuilt when it differed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cold: Option<crate::ArchiveRepair>,
}

/// What [`crate::Memcore::reindex`] did to one index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct IndexRebuild {
    /// Entries written.
    pub indexed: usize,
    /// Why the index was not rebuilt (the vector index without its model), if it was not.
    pub unavailable: Option<String>,
}

/// What [`crate::Memcore::reindex`] did.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct ReindexReport {
    /// Memories read from the store and indexed.
    pub memories: usize,
    /// Each index by name.
    pub indexes: BTreeMap<String, IndexRebuild>,
    /// Store files that could not be read (each names its file); they are not indexed.
    #[serde(serialize_with = "serialize_infos")]
    #[schemars(with = "Vec<ErrorInfo>")]
    pub unreadable: Vec<Error>,
}

/// What [`crate::Memcore::sync`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SyncReport {
    /// Memories whose index entries were brought level with the store (changed or removed).
    pub synced: usize,
    /// Whether the whole store was compared (first sync, or the store cannot say what
    /// changed) instead of only what changed since the last sync.
    pub full: bool,
}

/// Progress of a [`crate::Memcore::reindex`]: memories done out of the total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Progress {
    /// Memories indexed so far.
    pub done: usize,
    /// Memories to index.
    pub total: usize,
}
