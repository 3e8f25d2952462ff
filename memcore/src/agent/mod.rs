//! Agent profiles (seed 003's `agents/<id>/profile.json`): who an agent is (name, persona,
//! speaking style, any other settings of the application's) and its memory limits, kept as
//! the memory `agents/<id>`, so every backend keeps, versions and syncs it. An agent's own
//! memories are the memories whose `agent` metadata names it ([`crate::AGENT_KEY`]), the
//! tiered store's per-agent scope.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Error, Memory, MemoryId, MemoryRef, MemorySummary, NewMemory, Result};

/// The collection of agent profiles.
pub const PROFILES_COLLECTION: &str = "agents";
/// The type of a profile memory.
pub const PROFILE_KIND: &str = "agent-profile";
/// How many of its memories a profile shows when it does not say.
pub const DEFAULT_RECENT_LIMIT: usize = 10;

/// An agent's profile; also the `agent_set` request (the whole profile, replacing the old).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AgentProfile {
    /// The agent's id (lower-case letters, digits, `.`, `_`, `-`), as memories name it in
    /// their `agent` metadata.
    pub agent: String,
    /// The name it goes by.
    #[serde(default)]
    pub name: Option<String>,
    /// Its persona or backstory.
    #[serde(default)]
    pub persona: Option<String>,
    /// How it speaks.
    #[serde(default)]
    pub style: Option<String>,
    /// How many of its memories its profile shows, newest first (default 10).
    #[serde(default)]
    pub recent_limit: Option<usize>,
    /// The most memories it may own; `agent_remember` refuses more (no limit when absent).
    #[serde(default)]
    pub max_memories: Option<usize>,
    /// Anything else the application keeps about it (its model, flags, ...), kept as given.
    #[serde(default)]
    pub fields: Map<String, Value>,
}

impl AgentProfile {
    /// A profile of the agent `agent` with nothing else set.
    pub fn new(agent: impl Into<String>) -> Self {
        Self { agent: agent.into(), ..Self::default() }
    }

    /// The same profile with a persona.
    pub fn persona(mut self, persona: impl Into<String>) -> Self {
        self.persona = Some(persona.into());
        self
    }

    /// The same profile with a limit on the memories the agent may own.
    pub fn max_memories(mut self, max: usize) -> Self {
        self.max_memories = Some(max);
        self
    }
}

/// The `agent_profile` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AgentRequest {
    /// The agent's id.
    pub agent: String,
    /// How many of its memories to show (default: its profile's `recent_limit`).
    #[serde(default)]
    pub limit: Option<usize>,
}

impl AgentRequest {
    /// The profile of `agent`.
    pub fn new(agent: impl Into<String>) -> Self {
        Self { agent: agent.into(), limit: None }
    }
}

/// What `agent_profile` returns: the profile and the agent's newest memories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct AgentView {
    /// The profile.
    pub profile: AgentProfile,
    /// Its newest memories (by last change), at most the limit.
    pub memories: Vec<MemorySummary>,
    /// How many memories it owns.
    pub total: usize,
}

/// The `agent_remember` request: a memory of the agent's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AgentRememberRequest {
    /// The agent's id (it must have a profile).
    pub agent: String,
    /// The memory's markdown.
    pub content: String,
    /// Its title (else its first heading or line).
    #[serde(default)]
    pub title: Option<String>,
    /// Its collection (else the store's default).
    #[serde(default)]
    pub collection: Option<String>,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

impl AgentRememberRequest {
    /// A memory `content` of the agent `agent`.
    pub fn new(agent: impl Into<String>, content: impl Into<String>) -> Self {
        Self { agent: agent.into(), content: content.into(), ..Self::default() }
    }
}

/// Whether `memory` is an agent's profile (by its type and its collection together).
pub fn is_profile(memory: &Memory) -> bool {
    memory.kind.as_deref() == Some(PROFILE_KIND)
        && memory.collection.as_str() == PROFILES_COLLECTION
}

/// The collections memcore keeps its own records in (profiles, documents), which a memory of
/// an agent's may not be written to.
pub(crate) const RESERVED_COLLECTIONS: [&str; 4] = [
    PROFILES_COLLECTION,
    crate::docs::DOCUMENTS_COLLECTION,
    crate::docs::CHUNKS_COLLECTION,
    crate::docs::FEEDBACK_COLLECTION,
];

/// The reference of the profile of `agent`; a validation error for an id that is not one.
pub(crate) fn profile_ref(agent: &str) -> Result<MemoryRef> {
    let id = MemoryId::new(agent).map_err(|_| {
        Error::validation(
            format!("invalid agent id {agent:?}"),
            "an agent id uses lower-case letters, digits, '.', '_' and '-', e.g. `loom`",
        )
    })?;
    format!("{PROFILES_COLLECTION}/{id}").parse()
}

/// The memory holding `profile`.
pub(crate) fn profile_memory(profile: &AgentProfile) -> NewMemory {
    let title = profile.name.clone().unwrap_or_else(|| profile.agent.clone());
    let mut content = format!("# {title}\n");
    if let Some(persona) = profile.persona.as_deref().filter(|p| !p.trim().is_empty()) {
        content.push_str(&format!("\n{persona}\n"));
    }
    let mut memory = NewMemory::new(content)
        .id(profile.agent.clone())
        .collection(PROFILES_COLLECTION)
        .title(title)
        .kind(PROFILE_KIND);
    if let Ok(Value::Object(fields)) = serde_json::to_value(profile) {
        memory.metadata.extend(fields.into_iter().filter(|(key, value)| {
            key != "agent" && !value.is_null() && value != &Value::Object(Map::new())
        }));
    }
    memory
}

/// The profile a profile memory holds, forgiving hand edits: other keys than the profile's
/// join `fields`, an empty `fields` is none, and a number or flag where text belongs is read
/// as text. A corrupted error when it still is not one (a limit that is not a number).
pub(crate) fn profile_of(memory: &Memory) -> Result<AgentProfile> {
    const TEXTS: [&str; 3] = ["name", "persona", "style"];
    const LIMITS: [&str; 2] = ["recent_limit", "max_memories"];
    let mut profile = Map::new();
    let mut extra = Map::new();
    for (key, value) in &memory.metadata {
        match key.as_str() {
            "fields" => {
                if let Value::Object(fields) = value {
                    extra.extend(fields.clone());
                }
            }
            key if TEXTS.contains(&key) => {
                let text = match value {
                    Value::String(text) => Some(Value::String(text.clone())),
                    Value::Null => None,
                    other => Some(Value::String(other.to_string())),
                };
                profile.extend(text.map(|text| (key.to_owned(), text)));
            }
            key if LIMITS.contains(&key) => {
                profile.insert(key.to_owned(), value.clone());
            }
            key => {
                extra.insert(key.to_owned(), value.clone());
            }
        }
    }
    profile.insert("agent".into(), memory.id.as_str().into());
    profile.insert("fields".into(), Value::Object(extra));
    serde_json::from_value(Value::Object(profile)).map_err(|e| {
        Error::corrupted(
            std::path::PathBuf::from(memory.reference().to_string()),
            None,
            format!("not an agent profile: {e}"),
            "set the profile again (`agent_set`)",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_round_trips_through_its_memory() {
        let mut profile = AgentProfile::new("loom").persona("Weaves stories.").max_memories(3);
        profile.name = Some("Loom".into());
        profile.fields.insert("voice".into(), "warm".into());
        let now = crate::parse_timestamp("2026-11-28T00:00:00Z").unwrap();
        let memory = profile_memory(&profile)
            .into_memory(&"default".parse().unwrap(), &crate::Limits::default(), now)
            .unwrap();
        assert_eq!(memory.reference().to_string(), "agents/loom");
        assert!(memory.content.contains("Weaves stories."));
        assert_eq!(profile_of(&memory).unwrap(), profile);
    }

    #[test]
    fn a_hand_edited_profile_still_reads() {
        let profile = AgentProfile::new("loom");
        let now = crate::parse_timestamp("2026-11-28T00:00:00Z").unwrap();
        let mut memory = profile_memory(&profile)
            .into_memory(&"default".parse().unwrap(), &crate::Limits::default(), now)
            .unwrap();
        memory.metadata.insert("name".into(), 2024.into());
        memory.metadata.insert("fields".into(), Value::Null);
        memory.metadata.insert("model".into(), "small".into());
        let read = profile_of(&memory).unwrap();
        assert_eq!(read.name.as_deref(), Some("2024"));
        assert_eq!(read.fields.get("model"), Some(&Value::from("small")));
    }

    #[test]
    fn agent_ids_are_checked() {
        assert_eq!(profile_ref("Bad Id").unwrap_err().category(), crate::Category::Validation);
        assert_eq!(profile_ref("loom").unwrap().to_string(), "agents/loom");
    }
}
