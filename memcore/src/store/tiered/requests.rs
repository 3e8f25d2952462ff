//! The request and result records of the tiered store's operations: live sessions (start,
//! turn, note, end) and the timeline.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{TimelineEntry, TimelineFilter};
use crate::{MemoryRef, Timestamp};

/// Starts a live session ([`crate::Memcore::session_start`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SessionStartRequest {
    /// The session's id: 1-128 lower-case letters, digits, '.', '_' or '-'.
    pub session: String,
    /// What it is about (its timeline entry's title; default: the id).
    pub title: Option<String>,
    /// The agents taking part.
    pub agents: Vec<String>,
}

impl SessionStartRequest {
    /// A request to start the session `session`.
    pub fn new(session: impl Into<String>) -> Self {
        Self { session: session.into(), ..Self::default() }
    }

    /// The same request, with `agents` taking part.
    pub fn agents<I, S>(mut self, agents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.agents = agents.into_iter().map(Into::into).collect();
        self
    }
}

/// Adds a turn to a live session ([`crate::Memcore::session_turn`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SessionTurnRequest {
    /// The live session.
    pub session: String,
    /// Who spoke (`user`, `assistant`, an agent's id).
    pub role: String,
    /// What was said.
    pub content: String,
}

impl SessionTurnRequest {
    /// A turn of `role` saying `content` in `session`.
    pub fn new(
        session: impl Into<String>,
        role: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self { session: session.into(), role: role.into(), content: content.into() }
    }
}

/// What a [`SessionNoteRequest`] adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionNoteKind {
    /// A working note (the session's, or one agent's).
    #[default]
    Note,
    /// An open action item.
    ActionItem,
}

/// Adds a working note or an action item to a live session
/// ([`crate::Memcore::session_note`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SessionNoteRequest {
    /// The live session.
    pub session: String,
    /// The note or action item.
    pub text: String,
    /// A note or an action item (default: note).
    #[serde(default)]
    pub kind: SessionNoteKind,
    /// The agent a note belongs to (one of the session's agents); none: the session's.
    #[serde(default)]
    pub agent: Option<String>,
}

impl SessionNoteRequest {
    /// A working note of the session.
    pub fn note(session: impl Into<String>, text: impl Into<String>) -> Self {
        Self { session: session.into(), text: text.into(), ..Self::default() }
    }

    /// An open action item of the session.
    pub fn action_item(session: impl Into<String>, text: impl Into<String>) -> Self {
        Self { kind: SessionNoteKind::ActionItem, ..Self::note(session, text) }
    }

    /// The same note, `agent`'s own.
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }
}

/// Ends a live session ([`crate::Memcore::session_end`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SessionEndRequest {
    /// The live session.
    pub session: String,
    /// What it was about, for its timeline entry and its summary's tags.
    pub topics: Vec<String>,
    /// What it settled, for its timeline entry.
    pub consensus: Option<String>,
}

impl SessionEndRequest {
    /// A request to end `session`.
    pub fn new(session: impl Into<String>) -> Self {
        Self { session: session.into(), ..Self::default() }
    }
}

/// What ending a session did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct SessionEndReport {
    /// The session.
    pub session: String,
    /// Its turns, all now in the cold tier.
    pub turns: u64,
    /// Turns archived by this call (fewer than `turns` when an interrupted end is resumed).
    pub archived: usize,
    /// The warm memories written: the session's summary (with its open action items and
    /// notes), then each agent's notes.
    pub memories: Vec<MemoryRef>,
    /// Its timeline entry.
    pub timeline: TimelineEntry,
}

/// Lists timeline entries ([`crate::Memcore::timeline`]).
pub type TimelineRequest = TimelineFilter;

/// The timeline entries a [`TimelineRequest`] admits.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct TimelineListing {
    /// The entries, oldest first.
    pub entries: Vec<TimelineEntry>,
    /// Lines of `timeline.jsonl` that could not be read (a torn last line, a line edited by
    /// hand).
    pub unreadable: usize,
}

/// Compacts the warm tier ([`crate::Memcore::compact`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct CompactRequest {
    /// Judge ages at this time instead of now.
    pub now: Option<Timestamp>,
    /// Only report the plan: each digest and the memories it would fold in; change nothing.
    pub dry_run: bool,
}

impl CompactRequest {
    /// A compaction now.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same compaction, as a dry run.
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// The same compaction, judging ages at `now`.
    pub fn at(mut self, now: Timestamp) -> Self {
        self.now = Some(now);
        self
    }
}

/// One digest of a compaction: the memories of one collection and quarter past the window.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct DigestStep {
    /// The digest memory: `<collection>/digest-<yyyy>-q<n>`.
    pub digest: MemoryRef,
    /// The quarter the memories were created in, `2026-q3`.
    pub period: String,
    /// The memories demoted to the cold tier (their text leaves the warm one).
    pub originals: Vec<MemoryRef>,
    /// How many of them the digest's summary takes in now (the others it held already: an
    /// interrupted compaction resumed).
    pub folded: usize,
    /// Whether the digest existed before (an earlier compaction of the same quarter).
    pub extends: bool,
}

/// What a compaction did (or, in a dry run, would do).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct CompactionReport {
    /// Whether nothing was changed.
    pub dry_run: bool,
    /// Memories last changed before this were due.
    pub cutoff: Timestamp,
    /// The digests, by collection and quarter.
    pub digests: Vec<DigestStep>,
    /// Memories due but pinned (importance 1.0 or a `##keepit1.00##` marker), left alone.
    pub pinned: usize,
    /// Memories demoted in all.
    pub demoted: usize,
}

/// Pins memories so that compaction leaves them alone and purge refuses them unless forced
/// ([`crate::Memcore::retain`]): one memory, or an ended session's warm memories.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct RetainRequest {
    /// The memory: `collection/id`, or its id alone.
    #[serde(rename = "ref")]
    pub reference: Option<MemoryRef>,
    /// An ended session: its summary and its agents' notes.
    pub session: Option<String>,
}

impl RetainRequest {
    /// Pins the memory `reference`.
    pub fn memory(reference: MemoryRef) -> Self {
        Self { reference: Some(reference), session: None }
    }

    /// Pins the warm memories of the ended session `session`.
    pub fn session(session: impl Into<String>) -> Self {
        Self { reference: None, session: Some(session.into()) }
    }
}

/// What [`RetainRequest`] pinned.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct RetainReport {
    /// The memories now pinned (importance 1.0).
    pub pinned: Vec<MemoryRef>,
}

/// Removes a memory, or a session, from every tier for good ([`crate::Memcore::purge`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct PurgeRequest {
    /// The memory: `collection/id`.
    #[serde(rename = "ref")]
    pub reference: Option<MemoryRef>,
    /// A session: its turns, its warm memories, its timeline entry.
    pub session: Option<String>,
    /// Why (required; it goes in the audit log).
    pub reason: String,
    /// Who asks (for the audit log).
    pub by: Option<String>,
    /// Purge pinned memories and live sessions too.
    pub force: bool,
}

impl PurgeRequest {
    /// Purges the memory `reference` because of `reason`.
    pub fn memory(reference: MemoryRef, reason: impl Into<String>) -> Self {
        Self { reference: Some(reference), reason: reason.into(), ..Self::default() }
    }

    /// Purges the session `session` because of `reason`.
    pub fn session(session: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { session: Some(session.into()), reason: reason.into(), ..Self::default() }
    }
}

/// One purge, as the audit log keeps it and [`crate::Memcore::purge`] returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct AuditRecord {
    /// When.
    pub at: Timestamp,
    /// Who asked, if they said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// What: `memory collection/id` or `session <id>`.
    pub target: String,
    /// Why.
    pub reason: String,
    /// Whether pinned memories or a live session were purged on `force`.
    pub forced: bool,
    /// The warm memories removed.
    pub warm: Vec<MemoryRef>,
    /// Trashed copies and kept versions removed.
    pub copies: usize,
    /// Records removed from the cold tier (turns, demoted memories).
    pub cold: usize,
    /// Digests rebuilt without the purged memories (or removed, when nothing else was in
    /// them).
    pub digests: Vec<MemoryRef>,
    /// Timeline entries removed.
    pub timeline: usize,
}
