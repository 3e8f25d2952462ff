//! Stores: where memories live durably. [`MemoryStore`] is the contract every backend keeps;
//! [`FileStore`] is the default backend (one markdown file per memory).
//!
//! The store is the source of truth: every method that writes returns only after the change
//! is durable, and a failed call changes nothing. Derived indexes follow the store, never the
//! other way round.

mod cache;
mod file;
pub(crate) mod fsutil;
mod history;
pub(crate) mod lock;
mod trash;

use std::fmt::Debug;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

pub use file::{FileStore, PRIVATE_DIR};

use crate::git::{Hydrated, HydrationLevel};
use crate::{Collection, Error, Memory, MemoryId, MemoryUpdate, Result, Timestamp};

/// What [`MemoryStore::put`] does when the memory already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PutMode {
    /// Replace it: the new memory keeps the old `created_at` and gets the next version.
    #[default]
    Upsert,
    /// Fail with [`Error::Conflict`] and write nothing.
    CreateOnly,
}

/// A memory moved to the trash by [`MemoryStore::delete`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TrashEntry {
    /// The deleted memory's collection.
    pub collection: Collection,
    /// The deleted memory's id.
    pub id: MemoryId,
    /// When it was deleted.
    pub deleted_at: Timestamp,
    /// Where the deleted file now is.
    pub path: PathBuf,
}

/// One entry in the history of a memory, newest last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Version {
    /// What to pass to [`MemoryStore::get_version`]: a version number for built-in history,
    /// a commit id for git history.
    pub rev: String,
    /// The memory's `version` field at that point, when known.
    pub version: Option<u64>,
    /// When that version was written.
    pub timestamp: Timestamp,
    /// Who wrote it, when known.
    pub author: Option<String>,
    /// A commit message, for git history.
    pub message: Option<String>,
    /// Whether this is the current version.
    pub current: bool,
}

/// Visits memories one at a time; return [`ControlFlow::Break`] to stop early.
///
/// A memory that cannot be read (broken frontmatter, invalid UTF-8, a bad file name) arrives
/// as an `Err` naming its file; the visit goes on with the next one.
pub type Visitor<'a> = dyn FnMut(Result<Arc<Memory>>) -> ControlFlow<()> + 'a;

/// The contract of a memory backend.
///
/// All methods take `&self` and are safe to call from several threads and, for backends that
/// say so, several processes. A method that fails writes nothing. Run
/// `memcore/tests/conformance.rs` against a new backend.
pub trait MemoryStore: Send + Sync + Debug {
    /// A short name of the backend, such as `file`, used in messages.
    fn backend(&self) -> &'static str;

    /// Stores `memory` (already validated), creating it or, with [`PutMode::Upsert`],
    /// replacing it. Returns the memory as stored. Durable when it returns.
    fn put(&self, memory: Memory, mode: PutMode) -> Result<Memory>;

    /// Stores several memories as [`MemoryStore::put`] would, in order; backends may make the
    /// batch cheaper (one durability point for all). A conflict found before writing writes
    /// nothing; an I/O failure part-way leaves the memories before it stored.
    fn put_many(&self, memories: Vec<Memory>, mode: PutMode) -> Result<Vec<Memory>> {
        memories.into_iter().map(|memory| self.put(memory, mode)).collect()
    }

    /// Stores several memories as [`MemoryStore::put_many`] does, attached to the commit `rev`
    /// (any revision: `HEAD~1`, a commit id, a tag) instead of the configured one. Only
    /// backends that attach memories to commits (git notes) support it.
    fn put_many_at(&self, memories: Vec<Memory>, rev: &str, mode: PutMode) -> Result<Vec<Memory>> {
        let _ = (memories, rev, mode);
        Err(Error::unsupported(
            "storing a memory at a commit",
            self.backend(),
            "use the git-notes backend, or store the memory without a commit",
        ))
    }

    /// The memory `id`, in `collection` or, when `None`, in whichever collection holds it
    /// (an [`Error::Conflict`] if several do).
    fn get(&self, collection: Option<&Collection>, id: &MemoryId) -> Result<Arc<Memory>>;

    /// Applies `change` to the memory (read, change, write under the store's lock).
    /// Returns the memory as stored, with `version + 1` and `updated_at = now`.
    fn update(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory>;

    /// Moves the memory to the trash, from where [`MemoryStore::restore`] brings it back.
    fn delete(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
        now: Timestamp,
    ) -> Result<TrashEntry>;

    /// Brings back the most recently deleted memory `id`; an [`Error::Conflict`] if a live
    /// memory has taken that id meanwhile.
    fn restore(&self, collection: Option<&Collection>, id: &MemoryId) -> Result<Arc<Memory>>;

    /// The collections that hold at least one memory or were created, sorted by name.
    fn collections(&self) -> Result<Vec<Collection>>;

    /// Visits the memories of `collection` (all collections when `None`), sorted by
    /// collection then id.
    fn scan(&self, collection: Option<&Collection>, visit: &mut Visitor<'_>) -> Result<()>;

    /// The history of a memory, oldest first, the current version last.
    fn versions(&self, collection: Option<&Collection>, id: &MemoryId) -> Result<Vec<Version>> {
        let _ = (collection, id);
        Err(self.unsupported("versions"))
    }

    /// The memory as it was at `rev` (a [`Version::rev`]).
    fn get_version(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
        rev: &str,
    ) -> Result<Memory> {
        let _ = (collection, id, rev);
        Err(self.unsupported("get_version"))
    }

    /// The memory with as much of its context as `level` asks for (seed 002's progressive
    /// hydration). Backends without git context offer only [`HydrationLevel::Summary`].
    fn hydrate(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
        level: HydrationLevel,
    ) -> Result<Hydrated> {
        match level {
            HydrationLevel::Summary => {
                Ok(Hydrated::summary(Arc::unwrap_or_clone(self.get(collection, id)?)))
            }
            _ => Err(Error::unsupported(
                "hydrate beyond the summary level",
                self.backend(),
                "use the git-notes backend for commit and file context",
            )),
        }
    }

    /// A token naming the store's current state, for incremental index sync; `None` when the
    /// backend cannot say what changed since an earlier token (then sync compares everything).
    fn change_cursor(&self) -> Result<Option<String>> {
        Ok(None)
    }

    /// The index keys (`collection/id`) of memories that may have changed since `cursor`, a
    /// value of [`MemoryStore::change_cursor`].
    fn changed_since(&self, cursor: &str) -> Result<Vec<String>> {
        let _ = cursor;
        Err(self.unsupported("changed_since"))
    }

    /// The [`Error::Unsupported`] this backend returns for `operation`.
    fn unsupported(&self, operation: &str) -> Error {
        Error::unsupported(
            operation,
            self.backend(),
            "use a backend with history (the file store with versioning enabled)",
        )
    }
}
