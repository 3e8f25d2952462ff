//! What the cold tier archives: conversation turns, raw tool traces and memories demoted
//! from the warm tier, each one record with its provenance.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::session::registry::check_name;
use crate::{Error, Memory, MemoryRef, Result, Timestamp};

/// The longest record id, in bytes.
pub const MAX_RECORD_ID_LEN: usize = 512;

/// What an archived record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArchivedKind {
    /// A turn of a conversation (a full transcript is its turns).
    Turn,
    /// A raw tool call or its output.
    ToolTrace,
    /// A memory demoted from the warm tier (its full text and fields in `memory`).
    Memory,
}

impl ArchivedKind {
    /// The kind's name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Turn => "turn",
            Self::ToolTrace => "tool_trace",
            Self::Memory => "memory",
        }
    }
}

/// One record of the cold tier's archive.
///
/// ```
/// use memcore::{ArchivedKind, ArchivedRecord, now};
/// let turn = ArchivedRecord::new("s-2026-11-27/7", ArchivedKind::Turn, now(), "We ship on Friday.")
///     .session("s-2026-11-27")
///     .agent("planner");
/// assert_eq!(turn.session.as_deref(), Some("s-2026-11-27"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ArchivedRecord {
    /// Unique within the archive: archiving a record of the same id again replaces it.
    pub id: String,
    /// What it is.
    pub kind: ArchivedKind,
    /// When it happened (a turn's time, a memory's creation); its quarter picks its segment.
    pub at: Timestamp,
    /// The session it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The agent it belongs to (who spoke, whose memory it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The text, searched by full text.
    pub text: String,
    /// Where it came from: the warm memory it was demoted from, or the summary that replaced
    /// it there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<MemoryRef>,
    /// A demoted memory as it was, every field kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Box<Memory>>,
}

impl ArchivedRecord {
    /// A record of `kind` with `id`, time `at` and `text`.
    pub fn new(
        id: impl Into<String>,
        kind: ArchivedKind,
        at: Timestamp,
        text: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            kind,
            at,
            session: None,
            agent: None,
            text: text.into(),
            origin: None,
            memory: None,
        }
    }

    /// A record of `memory`, demoted from the warm tier: id `collection/id`, its content as
    /// text, its creation time, its author as agent.
    pub fn of_memory(memory: Memory) -> Self {
        let reference = memory.reference();
        Self {
            id: reference.to_string(),
            kind: ArchivedKind::Memory,
            at: memory.created_at,
            session: None,
            agent: memory.created_by.clone(),
            text: memory.content.clone(),
            origin: Some(reference),
            memory: Some(Box::new(memory)),
        }
    }

    /// Sets the session.
    pub fn session(mut self, session: impl Into<String>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// Sets the agent.
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// Sets the origin.
    pub fn origin(mut self, origin: MemoryRef) -> Self {
        self.origin = Some(origin);
        self
    }

    /// A validation error for an empty or overlong id, an id or agent with control
    /// characters, or a session id that is not a valid session name.
    pub(crate) fn validate(&self) -> Result<()> {
        let bad_id = self.id.trim().is_empty()
            || self.id.len() > MAX_RECORD_ID_LEN
            || self.id.chars().any(char::is_control);
        if bad_id {
            return Err(Error::validation(
                format!("invalid archive record id {:?}", self.id),
                format!(
                    "give 1-{MAX_RECORD_ID_LEN} bytes without control characters, such as \
                     `<session>/<turn>`"
                ),
            ));
        }
        if !(0..=9999).contains(&chrono::Datelike::year(&self.at)) {
            return Err(Error::validation(
                format!(
                    "archive record {} is dated {}, outside the years 0 to 9999",
                    self.id, self.at
                ),
                "give the time the record happened",
            ));
        }
        if let Some(session) = &self.session {
            check_name("session id", session)?;
        }
        if let Some(agent) = &self.agent
            && (agent.is_empty() || agent.len() > 200 || agent.chars().any(char::is_control))
        {
            return Err(Error::validation(
                format!("invalid agent {agent:?} on archive record {}", self.id),
                "give 1-200 bytes without control characters",
            ));
        }
        Ok(())
    }
}
