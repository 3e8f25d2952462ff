//! # memcore
//!
//! Persistent, searchable long-term memory for AI agents, as a library that runs inside the
//! agent's own process: no server, no network, no LLM needed.
//!
//! Memories are markdown files with YAML frontmatter, one per memory, human-readable and
//! git-friendly. The store is the source of truth and is written atomically and durably;
//! several processes may share one store.
//!
//! ## Quick start
//!
//! ```
//! use memcore::{Format, ListOptions, Memcore, MemoryUpdate, NewMemory};
//!
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path();
//! let memcore = Memcore::open(path)?;
//!
//! // Store: the id comes from the title, the first heading, or a content hash.
//! memcore.put(
//!     NewMemory::new("# GPU Acceleration Patterns\n\nPrefer Metal on Apple silicon.")
//!         .collection("knowledge")
//!         .tags(["gpu", "performance"])
//!         .created_by("claude"),
//! )?;
//!
//! // Change: version 2, tags merged, the old version kept in history.
//! memcore.update(
//!     "gpu-acceleration-patterns",
//!     MemoryUpdate::new().tags(["metal"]).merge_tags(true),
//! )?;
//!
//! // Read back, ready for a prompt.
//! let memory = memcore.get("knowledge/gpu-acceleration-patterns")?;
//! println!("{}", memory.render(Format::Context));
//!
//! // List with seed 000's `key=value` filters.
//! let listing = memcore.list(&ListOptions::new().filter("tags=metal")?)?;
//! assert_eq!(listing.memories[0].version, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Map of the crate
//!
//! - [`Memcore`] and [`MemcoreBuilder`]: the entry point; open by path or by [`Scope`];
//!   [`Stats`] counts what a store holds.
//! - [`Memory`], [`NewMemory`], [`MemoryUpdate`], [`MemoryId`], [`Collection`], [`Status`]:
//!   the data model.
//! - [`MemoryStore`]: the backend contract, with capability traits ([`StoreHistory`],
//!   [`CommitAttachment`], [`Hydration`], [`ChangeFeed`], [`SharedVectors`]); [`FileStore`] the markdown
//!   backend, [`GitNotesStore`] git notes; [`MemcoreBuilder::store`] opens over your own.
//! - [`MemoryRef`]: how a memory is named (`collection/id`) across every boundary.
//! - [`api`]: every operation as a request record in and a result record out, by name: what
//!   the C ABI, Python, the CLI and MCP call, with the JSON Schema of each record.
//! - [`Config`]: `.memcore.yaml` settings, [`Scope`] and [`locate`] for global and
//!   project-local stores.
//! - [`decay`]: the decay engine: status transitions, temporal and per-type decay, the
//!   lifecycle (archive, tombstone, delete) and keepit markers.
//! - [`Format`]: the `context`, `json` and `raw` renderings.
//! - [`Filter`]: `key=value` filters.
//! - [`Embedder`], [`OnnxEmbedder`], [`ModelFiles`]: local sentence embeddings.
//! - [`Error`]: one error type; every error has a [`Category`] and a recovery hint.
#![forbid(unsafe_code)]

pub mod agent;
pub mod api;
pub mod capture;
pub mod compose;
mod concurrent;
mod config;
pub mod decay;
pub mod docs;
mod embed;
mod error;
mod filter;
mod format;
mod git;
mod hex;
mod index;
mod indexed;
pub mod links;
mod memcore;
mod memory;
pub mod project;
mod search;
pub mod session;
mod store;
mod text;

pub use config::{
    Backend, Config, DATABASE_URL_VAR, DEFAULT_PROJECT_STORE, DatabaseUrl, EmbeddingConfig,
    GLOBAL_CONFIG_NAME, GitNotesConfig, Location, PROJECT_CONFIG_NAMES, PostgresConfig, Scope,
    TieredConfig, Versioning, find_project_config, global_root, locate,
};
pub use embed::{CallbackEmbedder, EmbedCallback, Embedder, ModelFiles, OnnxEmbedder};
pub use error::{BoxedSource, Category, Error, ErrorInfo, Result};
pub use filter::Filter;
pub use format::{Format, parse_timestamp};
pub use git::{
    ChangedFile, CommitInfo, Hydrated, HydrationLevel, MAX_HYDRATED_FILE_BYTES, MAX_HYDRATED_FILES,
};
pub use index::{
    GraphStatus, IndexCheck, IndexDiff, IndexRebuild, IndexRepair, Progress, ReindexReport,
    RepairReport, SyncReport, VerifyReport,
};
pub use indexed::Maintenance;
pub use memcore::{
    Clock, LinkStats, ListOptions, Listing, Memcore, MemcoreBuilder, Stats, TargetCount,
};
pub use memory::{
    AGENT_KEY, Collection, FIELD_NAMES, IntoMemoryRef, Limits, MAX_COLLECTION_LEN, MAX_ID_LEN,
    Memory, MemoryId, MemoryRef, MemorySummary, MemoryUpdate, Metadata, NewMemory, SESSION_KEY,
    Status, TURN_KEY, Timestamp, TurnPlace, now,
};
pub use search::{Hit, MAX_LIMIT, Query, Recency, ScoreParts, SearchMode, SearchResults};
#[cfg(feature = "postgres")]
pub use store::PostgresStore;
pub use store::{
    ArchiveCheck, ArchiveFilter, ArchiveHit, ArchiveRepair, ArchiveReport, ArchivedKind,
    ArchivedRecord, AuditLog, AuditRecord, ColdArchive, CompactRequest, CompactionReport,
    DEFAULT_HOT_CONTEXT_TURNS, DEFAULT_HOT_SUMMARY_TOKENS, DigestStep, HotEvidence, HotNote,
    HotRetrieval, HotSession, HotTier, HotTurn, MAX_RECORD_ID_LEN, PurgeReport, PurgeRequest,
    RecallHit, RecallRequest, RecallResults, RetainReport, RetainRequest, Retrieval,
    RetrieveRequest, RetrievedPassage, Tier, TierScope, TieredStore, Tiers, Timeline,
    TimelineEntry, TimelineFilter, TimelineKind, TimelineListing, TimelineRequest,
};
pub use store::{
    ChangeFeed, CommitAttachment, DEFAULT_NAMESPACES, FileStore, GitNotesStore, Hydration,
    MemoryStore, MergeConflict, MergeOutcome, MovedMemory, NOTES_REF_PREFIX, NamespaceMerge,
    NotesMergeReport, NotesSync, PRIVATE_DIR, PutMode, RenamedMemory, SharedVectors, StoreHistory,
    TrashEntry, VectorKey, Version, Visitor,
};

/// The README's Rust examples, compiled as doc tests so they stay true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
