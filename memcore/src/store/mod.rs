//! Stores: where memories live durably. [`MemoryStore`] is the contract every backend keeps;
//! [`FileStore`] is the default backend (one markdown file per memory), [`GitNotesStore`]
//! keeps memories as git notes, `PostgresStore` (cargo feature `postgres`) keeps them in a
//! PostgreSQL database shared by many machines, and [`TieredStore`] adds hot and cold tiers
//! to a file store.
//!
//! The store is the source of truth: every method that writes returns only after the change
//! is durable, and a failed call changes nothing. Derived indexes follow the store, never the
//! other way round: [`crate::Memcore`] keeps them level through its write protocol, so a
//! store knows nothing of them.
//!
//! Abilities only some backends have are capability traits ([`StoreHistory`],
//! [`CommitAttachment`], [`Hydration`], [`ChangeFeed`], [`SharedVectors`], [`Tiers`]) that a backend
//! offers through the matching accessor of [`MemoryStore`] (`None` by default).

mod cache;
mod file;
pub(crate) mod fsutil;
mod git_notes;
mod history;
pub(crate) mod lock;
#[cfg(feature = "postgres")]
mod postgres;
pub(crate) mod tiered;
mod trash;

use std::fmt::Debug;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use file::{FileStore, PRIVATE_DIR};
pub use git_notes::{
    DEFAULT_NAMESPACES, GitNotesStore, MergeConflict, MergeOutcome, MovedMemory, NOTES_REF_PREFIX,
    NamespaceMerge, NotesMergeReport, RenamedMemory,
};

#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
#[cfg(feature = "postgres")]
pub(crate) use postgres::redact;
pub use tiered::{
    ArchiveCheck, ArchiveFilter, ArchiveHit, ArchiveRepair, ArchiveReport, ArchivedKind,
    ArchivedRecord, AuditLog, AuditRecord, ColdArchive, CompactRequest, CompactionReport,
    DEFAULT_HOT_CONTEXT_TURNS, DEFAULT_HOT_SUMMARY_TOKENS, DigestStep, HotEvidence, HotNote,
    HotRetrieval, HotSession, HotTier, HotTurn, MAX_RECORD_ID_LEN, PurgeReport, PurgeRequest,
    RecallHit, RecallRequest, RecallResults, RetainReport, RetainRequest, Retrieval,
    RetrieveRequest, RetrievedPassage, SessionEndReport, SessionEndRequest, SessionNoteKind,
    SessionNoteRequest, SessionStartRequest, SessionTurnRequest, Tier, TierScope, TieredStore,
    Tiers, Timeline, TimelineEntry, TimelineFilter, TimelineKind, TimelineListing, TimelineRequest,
};

use crate::git::{Hydrated, HydrationLevel};
use crate::{Collection, Error, Memory, MemoryId, MemoryRef, MemoryUpdate, Result, Timestamp};

/// What [`MemoryStore::put`] does when the memory already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PutMode {
    /// Replace it: the new memory keeps the old `created_at` and gets the next version.
    #[default]
    Upsert,
    /// Fail with [`crate::Error::Conflict`] and write nothing.
    CreateOnly,
}

/// A memory moved to the trash by [`MemoryStore::delete`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct TrashEntry {
    /// `collection/id` of the deleted memory, for `restore`.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The deleted memory's collection.
    pub collection: Collection,
    /// The deleted memory's id.
    pub id: MemoryId,
    /// When it was deleted.
    pub deleted_at: Timestamp,
    /// Where the deleted file now is.
    pub path: PathBuf,
}

impl TrashEntry {
    /// The entry of the memory `id` of `collection`, deleted at `deleted_at` to `path`.
    pub(crate) fn new(
        collection: Collection,
        id: MemoryId,
        deleted_at: Timestamp,
        path: PathBuf,
    ) -> Self {
        let reference = MemoryRef::new(collection.clone(), id.clone());
        Self { reference, collection, id, deleted_at, path }
    }
}

/// One entry in the history of a memory, newest last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Version {
    /// What to pass to [`StoreHistory::get_version`]: a version number for built-in history,
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
/// say so, several processes. A method that fails with a validation, not-found or unsupported
/// error has written nothing; a write that fails part-way (a batch cut short) returns a
/// storage error, so that memcore indexes what was written. A memory is named by a
/// [`MemoryRef`]: `collection/id`, or a bare id that the store looks for in every collection
/// (an [`crate::Error::Conflict`] if several hold it). Run the conformance suite
/// (`memcore/tests/conformance/`) against a new backend, and give it to
/// [`crate::MemcoreBuilder::store`].
pub trait MemoryStore: Send + Sync + Debug {
    /// A short name of the backend, such as `file`, used in messages.
    fn backend(&self) -> &'static str;

    /// Where the store is, as shown to people (a directory, a repository).
    fn root(&self) -> &Path;

    /// The directory where memcore keeps the store's private files: its locks and, in
    /// `index/`, its derived indexes. Created (0700) by the store when it opens.
    fn private_dir(&self) -> &Path;

    /// Stores `memory` (already validated), creating it or, with [`PutMode::Upsert`],
    /// replacing it. Returns the memory as stored. Durable when it returns.
    fn put(&self, memory: Memory, mode: PutMode) -> Result<Memory>;

    /// Stores several memories as [`MemoryStore::put`] would, in order; backends may make the
    /// batch cheaper (one durability point for all). A conflict found before writing writes
    /// nothing; an I/O failure part-way leaves the memories before it stored.
    fn put_many(&self, memories: Vec<Memory>, mode: PutMode) -> Result<Vec<Memory>> {
        memories.into_iter().map(|memory| self.put(memory, mode)).collect()
    }

    /// The memory `reference` names.
    fn get(&self, reference: &MemoryRef) -> Result<Arc<Memory>>;

    /// The memories `references` name: one result per reference, in order, each as
    /// [`MemoryStore::get`] gives it. The outer error is a failure of the whole read (a lost
    /// database connection). Backends that read many memories at once cheaper than one at a
    /// time (a database: one query) override this default, which calls `get` for each.
    fn get_many(&self, references: &[MemoryRef]) -> Result<Vec<Result<Arc<Memory>>>> {
        Ok(references.iter().map(|reference| self.get(reference)).collect())
    }

    /// Applies `change` to the memory (read, change, write under the store's lock).
    /// Returns the memory as stored, with `version + 1` and `updated_at = now`.
    fn update(
        &self,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory>;

    /// Applies several changes as [`MemoryStore::update`] would, in order, and returns the
    /// memories as stored. A change whose memory is gone ([`crate::Error::NotFound`]) or has
    /// moved past its [`MemoryUpdate::expected_version`] ([`crate::Error::Conflict`]) is
    /// skipped, not written and not returned; any other error ends the batch. Backends may
    /// make the batch cheaper (the file store writes it with one durability point); this
    /// default updates one memory at a time, so a failure part-way leaves the earlier ones
    /// stored.
    fn update_many(
        &self,
        changes: &[(MemoryRef, MemoryUpdate)],
        now: Timestamp,
    ) -> Result<Vec<Memory>> {
        let mut stored = Vec::with_capacity(changes.len());
        for (reference, change) in changes {
            match self.update(reference, change, now) {
                Ok(memory) => stored.push(memory),
                Err(crate::Error::NotFound { .. } | crate::Error::Conflict { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(stored)
    }

    /// Memory files whose frontmatter names another id or collection than their place does
    /// (a file copied or moved by hand; the place wins when it is read), one description
    /// each, for `verify` to warn about. Stores whose names cannot disagree keep this
    /// default, which finds none.
    fn name_mismatches(&self) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    /// Removes what interrupted writes left behind (temp files, each holding a memory's
    /// text; PostgreSQL: vectors a machine kept for a memory another deleted meanwhile), under the store's writer lock so that no write in progress is touched; returns
    /// how many. Stores that leave nothing behind keep this default, which removes nothing.
    fn remove_leftovers(&self) -> Result<usize> {
        Ok(0)
    }

    /// Moves the memory to the trash, from where [`MemoryStore::restore`] brings it back.
    fn delete(&self, reference: &MemoryRef, now: Timestamp) -> Result<TrashEntry>;

    /// Brings back the most recently deleted memory `reference` names; an
    /// [`crate::Error::Conflict`] if a live memory has taken its id meanwhile.
    fn restore(&self, reference: &MemoryRef) -> Result<Arc<Memory>>;

    /// The collections that hold at least one memory or were created, sorted by name.
    fn collections(&self) -> Result<Vec<Collection>>;

    /// Visits the memories of `collection` (all collections when `None`), sorted by
    /// collection then id.
    fn scan(&self, collection: Option<&Collection>, visit: &mut Visitor<'_>) -> Result<()>;

    /// The store's version history, if it keeps one.
    fn history(&self) -> Option<&dyn StoreHistory> {
        None
    }

    /// Attaching memories to commits, if the store can (git notes).
    fn commits(&self) -> Option<&dyn CommitAttachment> {
        None
    }

    /// Context beyond the memory itself (a note's commit and files), if the store has it.
    fn hydration(&self) -> Option<&dyn Hydration> {
        None
    }

    /// What changed since an earlier point, if the store can say (git notes): indexes then
    /// catch up with changes made behind memcore's back incrementally.
    fn change_feed(&self) -> Option<&dyn ChangeFeed> {
        None
    }

    /// Merging the notes of another clone, if the store keeps git notes.
    fn notes_sync(&self) -> Option<&dyn NotesSync> {
        None
    }

    /// Whether [`MemoryStore::put_many`] stores a whole batch or nothing of it (one database
    /// transaction). memcore writes the upserts of such a store's batch in one write, where
    /// it otherwise writes a large batch a slice at a time.
    fn atomic_batches(&self) -> bool {
        false
    }

    /// A place beside the memories for the vectors memcore embeds, if the store has one
    /// that other machines read (PostgreSQL): a machine that indexes memories another one
    /// embedded takes their vectors instead of running the model. Shared (an `Arc`) because
    /// the vector index keeps it.
    fn shared_vectors(&self) -> Option<Arc<dyn SharedVectors>> {
        None
    }

    /// Removes the copies the store keeps of a memory besides the live one (its copies in the
    /// trash, its kept versions), so that after a delete none of its text is left; returns
    /// how many copies went. `reference` names its collection. History the store does not own
    /// (git commits) stays.
    fn expunge(&self, reference: &MemoryRef) -> Result<usize> {
        let _ = reference;
        Err(Error::unsupported(
            "expunging a deleted memory",
            self.backend(),
            "use a file or tiered store, or remove the copies with the backend's own tools",
        ))
    }

    /// [`MemoryStore::expunge`] for each of `references`, in one pass where the store can
    /// (the file store lists its trash once); returns how many copies went. This default
    /// expunges one at a time.
    fn expunge_many(&self, references: &[MemoryRef]) -> Result<usize> {
        references.iter().map(|reference| self.expunge(reference)).sum()
    }

    /// The hot and cold tiers and the timeline, if the store is tiered ([`TieredStore`]).
    fn tiers(&self) -> Option<&Tiers> {
        None
    }
}

/// A store that keeps the history of each memory (built-in `.versions/`, or git).
pub trait StoreHistory: Send + Sync {
    /// The history of a memory, oldest first, the current version last.
    fn versions(&self, reference: &MemoryRef) -> Result<Vec<Version>>;

    /// The memory as it was at `rev` (a [`Version::rev`]).
    fn get_version(&self, reference: &MemoryRef, rev: &str) -> Result<Memory>;
}

/// A store that attaches memories to commits (git notes).
pub trait CommitAttachment: Send + Sync {
    /// Stores memories as [`MemoryStore::put_many`] does, attached to the commit `rev` (any
    /// revision: `HEAD~1`, a commit id, a tag) instead of the configured one.
    fn put_many_at(&self, memories: Vec<Memory>, rev: &str, mode: PutMode) -> Result<Vec<Memory>>;
}

/// A store with context around a memory (seed 002's progressive hydration).
pub trait Hydration: Send + Sync {
    /// The memory with as much of its context as `level` asks for.
    fn hydrate(&self, reference: &MemoryRef, level: HydrationLevel) -> Result<Hydrated>;
}

/// A store whose memories another clone of its repository may also have written (git notes).
pub trait NotesSync: Send + Sync {
    /// Merges the notes of `remote`, fetched to its tracking refs, into this clone's: see
    /// [`GitNotesStore::merge_notes`].
    fn merge_notes(&self, remote: &str) -> Result<NotesMergeReport>;
}

/// A store that can say what changed since an earlier point.
pub trait ChangeFeed: Send + Sync {
    /// A token naming the store's current state.
    fn cursor(&self) -> Result<String>;

    /// The memories that may have changed since `cursor` (a value of
    /// [`ChangeFeed::cursor`]), as `collection/id`.
    fn changed_since(&self, cursor: &str) -> Result<Vec<MemoryRef>>;

    /// Whether the store has been told of changes made by other processes since the indexes
    /// were last synced ([`ChangeFeed::synced_to`]; PostgreSQL's `LISTEN`): [`crate::Memcore`]
    /// then syncs before its next search. Stores that are not told keep this default (`false`);
    /// they are synced on open and by [`crate::Memcore::sync`].
    fn has_news(&self) -> bool {
        false
    }

    /// Told by memcore once the indexes are level with the store as of `cursor` (a value
    /// of [`ChangeFeed::cursor`]): a store that reports news ([`ChangeFeed::has_news`])
    /// stops reporting what came before it. A sync that fails never calls it, so the news
    /// stays and the next search tries again.
    fn synced_to(&self, cursor: &str) {
        let _ = cursor;
    }
}

/// A store that keeps the vectors of its memories for every machine that indexes them
/// ([`MemoryStore::shared_vectors`]).
///
/// A vector is a function of the model and the text embedded: each is kept with the model's
/// id and a hash of its text, and is handed out only for the same two, so a memory changed
/// since, or another model, never gets a stale vector. The store is a cache here, not the
/// source of truth: memcore embeds whatever it does not find, and a vector that failed to be
/// kept costs another machine one embedding. A deleted memory's vectors go with it (one kept
/// by a machine that embedded it meanwhile stays until `repair`).
pub trait SharedVectors: Send + Sync + Debug {
    /// The kept vector of each key made by `model` from a text with the key's hash, in
    /// order; `None` where there is none.
    ///
    /// # Errors
    ///
    /// [`Error::Storage`] when the store cannot be read.
    fn fetch_vectors(&self, model: &str, keys: &[VectorKey]) -> Result<Vec<Option<Vec<f32>>>>;

    /// Keeps `vectors` (made by `model`): one per memory and model, replacing the one kept
    /// before (of another text); of a memory given twice, the last.
    ///
    /// # Errors
    ///
    /// [`Error::Storage`] when the store cannot be written.
    fn keep_vectors(&self, model: &str, vectors: &[(VectorKey, &[f32])]) -> Result<()>;
}

/// Names a vector in [`SharedVectors`]: the memory it belongs to and the hash of the text it
/// was made from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub struct VectorKey {
    /// `collection/id` of the memory.
    pub reference: MemoryRef,
    /// A hash (hex) of the text embedded.
    pub text_hash: String,
}

impl VectorKey {
    /// The key of the vector of `reference` made from a text with `text_hash`.
    pub(crate) fn new(reference: MemoryRef, text_hash: String) -> Self {
        Self { reference, text_hash }
    }
}

/// The error for a memory `collection/id` (or a bare `id`) that is not in the store.
pub(crate) fn not_found(collection: Option<&Collection>, id: &MemoryId) -> Error {
    match collection {
        Some(c) => Error::not_found(
            format!("memory '{id}' in collection '{c}'"),
            "check the id with list, or omit the collection to search all of them",
        ),
        None => Error::not_found(
            format!("memory '{id}'"),
            "check the id with list; a deleted memory can be brought back with restore",
        ),
    }
}

/// Makes `memory` the next version of `old`, which it replaces: `old`'s creation time, the
/// next version number, an update time never earlier than `old`'s.
pub(crate) fn succeed(memory: &mut Memory, old: &Memory) {
    memory.created_at = old.created_at;
    memory.version = old.version + 1;
    memory.updated_at = memory.updated_at.max(old.updated_at);
}

/// The error of a [`PutMode::CreateOnly`] put whose memory exists.
pub(crate) fn already_exists(memory: &Memory) -> Error {
    Error::conflict(
        format!("memory '{}' already exists in collection '{}'", memory.id, memory.collection),
        "use update to change it, put without create_only to replace it, or choose another id",
    )
}

/// The history entry of `memory` as kept in a numbered history (built-in or PostgreSQL).
pub(crate) fn version_entry(memory: &Memory, current: bool) -> Version {
    Version {
        rev: memory.version.to_string(),
        version: Some(memory.version),
        timestamp: memory.updated_at,
        author: memory.created_by.clone(),
        message: None,
        current,
    }
}
