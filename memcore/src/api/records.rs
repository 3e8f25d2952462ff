//! The request and result records of operations that have no record of their own elsewhere
//! (a search's request is [`crate::Query`], a listing's [`crate::ListOptions`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::store::PutMode;
use crate::{HydrationLevel, Memcore, Memory, MemoryRef, MemoryUpdate, NewMemory, Version};

/// A memory with its `ref`: how every binding receives a whole memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Memory")]
#[non_exhaustive]
pub struct MemoryRecord {
    /// `collection/id`: finds exactly this memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The memory's fields.
    #[serde(flatten)]
    pub memory: Memory,
}

impl MemoryRecord {
    /// The record of `memory`.
    pub fn of(memory: Memory) -> Self {
        Self { reference: memory.reference(), memory }
    }
}

/// The `put` request: memories to store, in one batch.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct PutRequest {
    /// The memories; all are validated (and with `create_only` checked for conflicts)
    /// before anything is written.
    pub memories: Vec<NewMemory>,
    /// `upsert` (default) replaces a memory with the same id; `create_only` makes that a
    /// conflict and writes nothing.
    #[serde(default)]
    pub mode: PutMode,
    /// Attach the memories to this commit (any revision; git notes only).
    #[serde(default)]
    pub commit: Option<String>,
}

/// What `put` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct PutResult {
    /// The memories as stored, in order.
    pub memories: Vec<MemoryRecord>,
}

/// A request naming one memory.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RefRequest {
    /// The memory: `collection/id`, or its id alone.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
}

/// A request naming one memory and, optionally, one of its versions: `get` reads that version,
/// `restore` writes it back as a new one (without one, `get` reads the memory as it is now and
/// `restore` brings it back from the trash).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct VersionRequest {
    /// The memory: `collection/id`, or its id alone.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// A version: a version number (built-in history), any git revision, or `current`.
    #[serde(default)]
    pub version: Option<String>,
}

/// The `update` request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct UpdateRequest {
    /// The memory: `collection/id`, or its id alone.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The change: fields left out keep their value.
    pub change: MemoryUpdate,
}

/// The `diff` request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DiffRequest {
    /// The memory: `collection/id`, or its id alone.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The older revision (as for `get`'s `version`).
    pub from: String,
    /// The newer revision; `current` (the memory as it is now) when left out.
    #[serde(default = "current")]
    pub to: String,
}

fn current() -> String {
    Memcore::CURRENT.to_owned()
}

/// What `versions` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct VersionsResult {
    /// The memory's versions, oldest first.
    pub versions: Vec<Version>,
}

/// What `diff` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct DiffResult {
    /// A unified diff of the memory's file; empty when the revisions do not differ.
    pub diff: String,
}

/// The `hydrate` request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct HydrateRequest {
    /// The memory: `collection/id`, or its id alone.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// How much context: `summary` (default), `full` or `files`.
    #[serde(default)]
    pub level: HydrationLevel,
}

/// The `notes_merge` request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NotesMergeRequest {
    /// The git remote whose notes were fetched to `refs/notes/<remote>/mem/*`.
    pub remote: String,
}

/// The request of an operation that takes no arguments: `{}`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NoArguments {}

/// What `opened` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct OpenedResult {
    /// The index work opening the store did (see [`crate::Memcore::opened_with`]); a
    /// `rebuilt` entry with `damaged: true` means something damaged the index.
    pub maintenance: Vec<crate::Maintenance>,
}

/// What `collections` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct CollectionsResult {
    /// The store's collections, sorted by name.
    pub collections: Vec<crate::Collection>,
}
