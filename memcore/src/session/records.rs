//! The records of the session registry (seed 004 section 2): sessions, their keepit markers
//! and compression versions, and compositions. They are the files' contents too
//! (`manifest.json`, `versions.json`, `composition.json`), with snake_case keys like every
//! other memcore record.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::settings::CompressionSettings;
use super::transcript::{SessionMetadata, SkippedLine, TranscriptFormat};
use crate::Timestamp;
use crate::compose::Tokenizer;

/// A `##keepitX.XX##` marker found in a session's message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SessionKeepit {
    /// `<message uuid>#<n>`: the n-th marker (from 0) of that message.
    pub marker_id: String,
    /// The message holding it.
    pub message_uuid: String,
    /// Its weight, 0.00 to 1.00.
    pub weight: f64,
    /// The marked text.
    pub content: String,
    /// Where the tag starts in the message, in characters.
    pub start: usize,
    /// Where the marked text ends, in characters.
    pub end: usize,
    /// The message's text around it (up to 80 characters each side).
    pub context: String,
    /// When the message was written, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    /// Versions it survived in, verbatim.
    pub survived_in: Vec<String>,
    /// Versions it was summarised in.
    pub summarized_in: Vec<String>,
}

/// What a compression did with keepit markers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct KeepitStats {
    /// Markers kept verbatim.
    pub preserved: usize,
    /// Markers left to the summariser.
    pub summarized: usize,
    /// How many preserved markers have each weight (`"0.80"`), with every weight of the
    /// compressed messages listed (0 when none of that weight survived), as seed 004's
    /// `versions.json` example shows.
    pub weights: BTreeMap<String, usize>,
}

impl KeepitStats {
    /// The share of markers preserved; 1 when there were none (nothing was lost).
    pub fn preservation_rate(&self) -> f64 {
        let all = self.preserved + self.summarized;
        if all == 0 { 1.0 } else { self.preserved as f64 / all as f64 }
    }
}

/// A compression version of a session (seed 004's `CompressionRecord`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct CompressionRecord {
    /// `v001`, `v002`, ...
    pub version_id: String,
    /// The files' name without extension (`v001_tiered-standard_10k`): `.md` and `.jsonl`.
    pub file: String,
    /// When it was made.
    pub created_at: Timestamp,
    /// The settings used (`model` names the summariser).
    pub settings: CompressionSettings,
    /// The tokens of its messages.
    pub output_tokens: usize,
    /// Its messages.
    pub output_messages: usize,
    /// Input tokens over output tokens.
    pub compression_ratio: f64,
    /// What happened to keepit markers.
    pub keepit_stats: KeepitStats,
    /// The version it was compressed from, if not the original.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_version: Option<String>,
    /// The tokenizer its tokens were counted with.
    pub tokenizer: String,
}

/// A registered session (seed 004's `SessionRecord`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The session's id.
    pub session_id: String,
    /// The immutable copy of the transcript, relative to the sessions directory.
    pub original_file: String,
    /// The file it was registered from.
    pub source_file: String,
    /// SHA-256 of the original, checked whenever it is read.
    pub original_sha256: String,
    /// The transcript's format.
    pub format: TranscriptFormat,
    /// How its tokens are counted (and its versions' and compositions').
    pub tokenizer: Tokenizer,
    /// The tokens of its messages.
    pub original_tokens: usize,
    /// Its messages.
    pub original_messages: usize,
    /// Lines that were skipped when it was read, with why (the first 100).
    pub skipped_lines: Vec<SkippedLine>,
    /// How many lines were skipped in all.
    pub skipped_count: usize,
    /// The first message's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_timestamp: Option<Timestamp>,
    /// The last message's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_timestamp: Option<Timestamp>,
    /// When it was registered.
    pub registered_at: Timestamp,
    /// When it was last used in a composition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_accessed: Option<Timestamp>,
    /// What the transcript says of itself.
    pub metadata: SessionMetadata,
    /// The keepit markers of its messages.
    pub keepit_markers: Vec<SessionKeepit>,
    /// Malformed keepit tags found (left as text), with where.
    pub keepit_warnings: Vec<String>,
    /// Its compression versions, oldest first (from `versions.json`).
    pub compressions: Vec<CompressionRecord>,
}

/// A session's versions file (seed 004 section 3.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct VersionsFile {
    /// The session.
    pub(crate) session_id: String,
    /// Its original, relative to the sessions directory.
    pub(crate) original_file: String,
    /// The original's tokens.
    pub(crate) original_tokens: usize,
    /// The original's messages.
    pub(crate) original_messages: usize,
    /// The versions, oldest first.
    pub(crate) versions: Vec<CompressionRecord>,
    /// The number the next version gets (numbers of pruned versions are not reused).
    #[serde(default)]
    pub(crate) next_version: u32,
}

/// A recompression a composition asked for, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Recompression {
    /// The settings it was made with.
    pub settings: CompressionSettings,
    /// Why it was made.
    pub reason: String,
}

/// One session in a composition (seed 004's `CompositionComponent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct CompositionComponent {
    /// The session.
    pub session_id: String,
    /// The version used (`original` for the transcript itself).
    pub version_id: String,
    /// Its place in the composition, from 0.
    pub order: usize,
    /// The tokens it contributes.
    pub token_contribution: usize,
    /// The budget it was given.
    pub token_budget: usize,
    /// How the version was chosen: `explicit`, `recompressed`, `selected` (with its score),
    /// `original`, or `compressed-on-demand`.
    pub selection: String,
    /// The selected version's score, when it was chosen by score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The recompression made for it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recompress: Option<Recompression>,
}

/// A composed context of several sessions (seed 004's `ComposedContextRecord`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct CompositionRecord {
    /// A unique id (time and name hash).
    pub composition_id: String,
    /// Its name, also its directory (`composed/<name>/`).
    pub name: String,
    /// When it was made.
    pub created_at: Timestamp,
    /// The total budget asked for.
    pub token_budget: usize,
    /// Its sessions, in order.
    pub components: Vec<CompositionComponent>,
    /// The markdown output, relative to the sessions directory (`composed.jsonl` beside it).
    pub output_file: String,
    /// The sum of the components' tokens.
    pub total_tokens: usize,
    /// The messages of the output.
    pub total_messages: usize,
    /// Sessions registered as having started from this composition.
    pub used_in_sessions: Vec<String>,
    /// Things the caller should know (a component over its budget, ...).
    pub warnings: Vec<String>,
}

impl CompositionRecord {
    /// The file of its composed context in its directory: `composed.md`, or
    /// `composed.jsonl` when only that was written.
    pub fn context_file(&self) -> &'static str {
        if self.output_file.ends_with(".jsonl") { "composed.jsonl" } else { "composed.md" }
    }
}

/// The registry's manifest (seed 004 section 2.2): sessions and compositions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    /// The schema version.
    pub(crate) version: String,
    /// When it was created.
    pub(crate) created_at: Timestamp,
    /// When it last changed.
    pub(crate) last_modified: Timestamp,
    /// The sessions, by id, without their versions (those are in `versions.json`).
    pub(crate) sessions: BTreeMap<String, SessionRecord>,
    /// The compositions, by name.
    pub(crate) compositions: BTreeMap<String, CompositionRecord>,
}

impl Manifest {
    /// The manifest's schema version.
    pub(crate) const VERSION: &'static str = "1.0.0";

    /// An empty manifest made at `now`.
    pub(crate) fn new(now: Timestamp) -> Self {
        Self {
            version: Self::VERSION.to_owned(),
            created_at: now,
            last_modified: now,
            sessions: BTreeMap::new(),
            compositions: BTreeMap::new(),
        }
    }

    /// The compositions using `version_id` of `session_id`.
    pub(crate) fn compositions_using(&self, session_id: &str, version_id: &str) -> Vec<String> {
        self.compositions
            .values()
            .filter(|c| {
                c.components
                    .iter()
                    .any(|p| p.session_id == session_id && p.version_id == version_id)
            })
            .map(|c| c.name.clone())
            .collect()
    }
}
