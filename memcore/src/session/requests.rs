//! The request and result records of the session operations.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::records::{CompositionRecord, CompressionRecord, SessionRecord};
use super::settings::CompressionSettings;
use super::transcript::TranscriptFormat;
use crate::Timestamp;
use crate::compose::Tokenizer;

/// Which summariser a compression uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SummarizerChoice {
    /// The handle's callback if one is set ([`crate::Memcore::set_summarizer`]), else the
    /// project manifest's summary command (mode `command`), else the extractive default.
    #[default]
    Auto,
    /// The built-in extractive summariser.
    Extractive,
    /// The handle's callback (a validation error when none is set).
    Callback,
}

/// Registers a conversation transcript ([`crate::Memcore::session_add`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SessionAddRequest {
    /// The transcript file (a Claude Code session `.jsonl`, or generic JSONL).
    pub path: String,
    /// The session's id (default: the transcript's `sessionId`, else the file name).
    pub session_id: Option<String>,
    /// The transcript's format (default: detected).
    pub format: TranscriptFormat,
    /// How tokens are counted for this session (default `estimate`).
    pub tokenizer: Tokenizer,
    /// Register again over a session of the same id whose transcript changed (its
    /// versions are kept; they were made from the older transcript).
    pub replace: bool,
    /// Compositions this session started from: it is added to their `used_in_sessions`.
    pub composed_from: Vec<String>,
}

impl SessionAddRequest {
    /// A request to register the transcript at `path`.
    pub fn new(path: impl Into<String>) -> Self {
        Self { path: path.into(), ..Self::default() }
    }
}

/// Names a session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SessionRequest {
    /// The session's id.
    pub session: String,
}

/// Names a version of a session ([`crate::Memcore::session_version`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SessionVersionRequest {
    /// The session's id.
    pub session: String,
    /// The version (`v001`), or `original` for the transcript as registered.
    pub version: String,
}

/// A version of a session with its text ([`crate::Memcore::session_version`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct VersionContent {
    /// The version's record; none for `original`.
    pub version: Option<CompressionRecord>,
    /// Its text: the markdown of its messages, or the original transcript.
    pub content: String,
}

/// Names a composition ([`crate::Memcore::session_composition`],
/// [`crate::Memcore::session_composition_delete`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CompositionRequest {
    /// The composition's name.
    pub name: String,
}

/// A composition and the context it composed ([`crate::Memcore::session_composition`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct CompositionContext {
    /// The composition.
    pub composition: CompositionRecord,
    /// The composed context: `composed.md`, or `composed.jsonl` when only that was written.
    pub context: String,
}

/// Compresses a session into a new version ([`crate::Memcore::session_compress`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SessionCompressRequest {
    /// The session's id.
    pub session: String,
    /// How to compress (default: uniform 10:1, keepit decay, distance 1).
    pub settings: CompressionSettings,
    /// Compress this version further instead of the original (lineage is recorded).
    pub from_version: Option<String>,
    /// Which summariser.
    pub summarizer: SummarizerChoice,
}

impl SessionCompressRequest {
    /// A request to compress `session` with `settings`.
    pub fn new(session: impl Into<String>, settings: CompressionSettings) -> Self {
        Self { session: session.into(), settings, ..Self::default() }
    }
}

/// One session of a composition.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct ComponentRequest {
    /// The session's id.
    pub session: String,
    /// A version to use (`v001`, or `original`); default: chosen by score.
    pub version: Option<String>,
    /// Compress anew from the original with these settings.
    pub recompress: Option<CompressionSettings>,
}

impl ComponentRequest {
    /// The session `session`, its version chosen by score.
    pub fn new(session: impl Into<String>) -> Self {
        Self { session: session.into(), ..Self::default() }
    }

    /// The session `session` at version `version` (`v001`, or `original`).
    pub fn at_version(session: impl Into<String>, version: impl Into<String>) -> Self {
        Self { version: Some(version.into()), ..Self::new(session) }
    }
}

/// Which files a composition writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompositionOutput {
    /// `composed.md` and `composed.jsonl`.
    #[default]
    Both,
    /// `composed.md` only.
    Markdown,
    /// `composed.jsonl` only.
    Jsonl,
}

/// Composes several sessions into one context ([`crate::Memcore::session_compose`], seed 004
/// section 4.4).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SessionComposeRequest {
    /// The composition's name (its directory).
    pub name: String,
    /// The sessions, newest first, as seed 004 orders them: a session compressed on demand
    /// gets its place (from 1) as session distance, so older ones decay more.
    pub components: Vec<ComponentRequest>,
    /// The total token budget, split evenly between the components.
    pub budget: usize,
    /// Which files to write.
    pub output: CompositionOutput,
    /// Replace a composition of the same name.
    pub replace: bool,
    /// Which summariser compresses on demand.
    pub summarizer: SummarizerChoice,
}

impl SessionComposeRequest {
    /// A composition named `name` of `components` within `budget` tokens.
    pub fn new(name: impl Into<String>, components: Vec<ComponentRequest>, budget: usize) -> Self {
        Self { name: name.into(), components, budget, ..Self::default() }
    }
}

/// Deletes versions of a session ([`crate::Memcore::session_prune`], seed 004 section 5.5).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SessionPruneRequest {
    /// The session's id.
    pub session: String,
    /// The versions to delete.
    pub versions: Vec<String>,
    /// Or: delete all but the newest this many.
    pub keep_latest: Option<usize>,
    /// Delete versions that compositions use too (their composed files stay).
    pub force: bool,
}

impl SessionPruneRequest {
    /// Prunes `versions` of `session`.
    pub fn versions(session: impl Into<String>, versions: Vec<String>) -> Self {
        Self { session: session.into(), versions, ..Self::default() }
    }

    /// Prunes all but the newest `keep` versions of `session`.
    pub fn keep_latest(session: impl Into<String>, keep: usize) -> Self {
        Self { session: session.into(), keep_latest: Some(keep), ..Self::default() }
    }

    /// Deletes versions compositions use too.
    pub fn force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }
}

/// What a prune did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct PruneResult {
    /// The versions deleted.
    pub deleted: Vec<String>,
    /// The versions left.
    pub kept: Vec<String>,
    /// Versions deleted although compositions use them (with `force`), naming those.
    pub warnings: Vec<String>,
}

/// A session in a listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SessionSummary {
    /// The session's id.
    pub session_id: String,
    /// Its tokens.
    pub original_tokens: usize,
    /// Its messages.
    pub original_messages: usize,
    /// Its first message's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_timestamp: Option<Timestamp>,
    /// Its last message's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_timestamp: Option<Timestamp>,
    /// When it was registered.
    pub registered_at: Timestamp,
    /// Its versions' ids.
    pub versions: Vec<String>,
    /// Its keepit markers.
    pub keepit_markers: usize,
}

impl SessionSummary {
    /// The summary of `record`.
    pub(crate) fn of(record: &SessionRecord) -> Self {
        Self {
            session_id: record.session_id.clone(),
            original_tokens: record.original_tokens,
            original_messages: record.original_messages,
            first_timestamp: record.first_timestamp,
            last_timestamp: record.last_timestamp,
            registered_at: record.registered_at,
            versions: record.compressions.iter().map(|v| v.version_id.clone()).collect(),
            keepit_markers: record.keepit_markers.len(),
        }
    }
}

/// The registry's sessions and compositions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SessionListing {
    /// The sessions, by id.
    pub sessions: Vec<SessionSummary>,
    /// The compositions, by name.
    pub compositions: Vec<CompositionRecord>,
}
