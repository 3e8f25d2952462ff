//! The memory model: plain data, no I/O.
//!
//! A [`Memory`] is markdown content plus metadata. New memories are described with
//! [`NewMemory`], changes with [`MemoryUpdate`]; both are validated against [`Limits`] when
//! they are applied, so a bad value is a typed error before anything is written.

mod id;
mod reference;
mod status;
mod update;

use std::collections::BTreeMap;

use chrono::{DateTime, SubsecRound, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use id::{Collection, MAX_COLLECTION_LEN, MAX_ID_LEN, MemoryId};
pub use reference::{IntoMemoryRef, MemoryRef};
pub use status::Status;
pub use update::MemoryUpdate;

use crate::{Error, Result};

/// A point in time, UTC, stored as RFC 3339 (`2025-10-30T14:23:45Z`).
pub type Timestamp = DateTime<Utc>;

/// The frontmatter keys memcore interprets: the fields of [`Memory`] besides its content.
/// Extra metadata may not use them, and filters know them as built-in fields.
pub const FIELD_NAMES: [&str; 17] = [
    "id",
    "title",
    "collection",
    "summary",
    "type",
    "status",
    "tags",
    "category",
    "context",
    "related_to",
    "project",
    "priority",
    "created_by",
    "created_at",
    "updated_at",
    "importance",
    "version",
];

/// Extra frontmatter keys memcore does not interpret, kept verbatim (as JSON values).
pub type Metadata = BTreeMap<String, serde_json::Value>;

/// The current time, truncated to whole seconds as stored in frontmatter.
pub fn now() -> Timestamp {
    Utc::now().trunc_subsecs(0)
}

/// Size limits checked before anything is written (seed 002, appendix F).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// The largest content, in bytes of UTF-8. Default 100 KiB.
    pub max_content_bytes: usize,
    /// The longest summary, in characters. Default 100.
    pub max_summary_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_content_bytes: 100 * 1024, max_summary_chars: 100 }
    }
}

impl Limits {
    /// Checks content against the limits: it must be non-blank and not too large.
    pub fn check_content(&self, content: &str) -> Result<()> {
        if content.trim().is_empty() {
            return Err(Error::validation(
                "content is empty",
                "give the memory some text; to remove a memory use delete",
            ));
        }
        if content.len() > self.max_content_bytes {
            return Err(Error::validation(
                format!(
                    "content too large: {} bytes (max {})",
                    content.len(),
                    self.max_content_bytes
                ),
                "reduce the content or split it into several memories (or raise \
                 limits.max_content_bytes in the config)",
            ));
        }
        Ok(())
    }

    /// Checks a summary: at most `max_summary_chars` characters.
    pub fn check_summary(&self, summary: &str) -> Result<()> {
        let chars = summary.chars().count();
        if chars > self.max_summary_chars {
            return Err(Error::validation(
                format!("summary too long: {chars} characters (max {})", self.max_summary_chars),
                format!("shorten the summary to {} characters or less", self.max_summary_chars),
            ));
        }
        Ok(())
    }

    /// Checks extra metadata keys: non-empty and not one of the fields memcore interprets
    /// (`id`, `title`, `tags`, `version`, ...), which have their own setters.
    pub fn check_metadata(metadata: &Metadata) -> Result<()> {
        let reserved = |key: &str| key.is_empty() || FIELD_NAMES.contains(&key);
        match metadata.keys().find(|key| reserved(key.trim())) {
            Some(key) if key.trim().is_empty() => {
                Err(Error::validation("a metadata key is empty", "give every metadata key a name"))
            }
            Some(key) => Err(Error::validation(
                format!("metadata key `{key}` is a memory field, not extra metadata"),
                format!("set `{key}` through its own setter (or option), not through metadata"),
            )),
            None => Ok(()),
        }
    }

    /// Checks an importance weight: a finite number in `0.0..=1.0`.
    pub fn check_importance(importance: f64) -> Result<()> {
        if !(0.0..=1.0).contains(&importance) {
            return Err(Error::validation(
                format!("importance {importance} is outside 0.0..=1.0"),
                "give an importance between 0.0 (forgettable) and 1.0 (keep)",
            ));
        }
        Ok(())
    }
}

/// One memory: markdown content plus its metadata.
///
/// Field names follow the seed designs so that a memory file reads naturally; see
/// ARCHITECTURE.md section 3. Its serde form is the memory record of every binding (the
/// bindings add its `ref`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Memory {
    /// Unique within its collection.
    pub id: MemoryId,
    /// The collection (folder, namespace) holding it.
    pub collection: Collection,
    /// A human title: given, else the first H1, else the first line of content.
    pub title: String,
    /// A one-line summary (at most 100 characters), where the writer gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The kind of memory: plan, journal, fact, observation, decision, learning, blocker, ...
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The lifecycle status.
    pub status: Status,
    /// Searchable keywords, in the order given, without duplicates.
    pub tags: Vec<String>,
    /// The primary category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Why the memory was created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Related memory ids or issue references.
    pub related_to: Vec<String>,
    /// The project it belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// A priority label such as `high`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    /// Who wrote it (an agent or a person).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// When it was first stored.
    pub created_at: Timestamp,
    /// When it was last changed (equal to `created_at` until then).
    pub updated_at: Timestamp,
    /// How much it matters, 0.0 to 1.0, where set (keepit weights and pins map here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
    /// Starts at 1 and increases on every update.
    pub version: u64,
    /// Frontmatter keys memcore does not interpret, kept verbatim.
    pub metadata: Metadata,
    /// The markdown body.
    pub content: String,
}

/// The metadata key naming the agent a memory belongs to (seed 003's per-agent memory): a
/// memory without it is shared. Searches can ask for one agent's view
/// ([`crate::Query::agent`]) or the shared one ([`crate::Query::shared`]).
pub const AGENT_KEY: &str = "agent";

/// The metadata key naming the conversation (a session, a thread) a memory belongs to: a
/// string or a number. With [`TURN_KEY`] it makes the memory a turn of that conversation.
pub const SESSION_KEY: &str = "session";

/// The metadata key giving a turn's place in its conversation ([`SESSION_KEY`]): a whole
/// number, counting up by one per turn. The full-text index reads the turn before a turn
/// with it (short replies such as "yes, last week!" mean little on their own).
///
/// ```
/// use memcore::{Memcore, NewMemory, Query, SearchMode};
///
/// let dir = tempfile::tempdir()?;
/// let memcore = Memcore::open(dir.path())?;
/// let turn = |n: u64, who: &str, text: &str| {
///     NewMemory::new(text).created_by(who).meta("session", "trip").meta("turn", n)
/// };
/// memcore.put_many(vec![
///     turn(1, "Ana", "Did you ever make it to the glacier?"),
///     turn(2, "Ben", "Yes, last week, it was stunning."),
/// ])?;
/// let hits = memcore.search(&Query::new("glacier").mode(SearchMode::Text))?.hits;
/// assert_eq!(hits.len(), 2, "the reply is found through the turn it answers");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const TURN_KEY: &str = "turn";

/// Where a memory sits in a conversation: its [`SESSION_KEY`] and [`TURN_KEY`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TurnPlace {
    /// The conversation, as text (a number is written in decimal).
    pub session: String,
    /// The turn's number in it.
    pub turn: u64,
}

impl Memory {
    /// Where this memory sits in a conversation, when its metadata has a [`SESSION_KEY`]
    /// (text or a number) and a whole-number [`TURN_KEY`] (a number, or digits as text).
    pub fn turn_place(&self) -> Option<TurnPlace> {
        let session = match self.metadata.get(SESSION_KEY)? {
            serde_json::Value::String(s) if !s.is_empty() => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => return None,
        };
        let turn = match self.metadata.get(TURN_KEY)? {
            serde_json::Value::Number(n) => n.as_u64()?,
            serde_json::Value::String(s) => s.parse().ok()?,
            _ => return None,
        };
        Some(TurnPlace { session, turn })
    }

    /// The agent this memory belongs to (its [`AGENT_KEY`] metadata, when a string), or
    /// `None` for a shared memory.
    pub fn agent(&self) -> Option<&str> {
        self.metadata.get(AGENT_KEY).and_then(serde_json::Value::as_str)
    }

    /// Who owns this memory for agent views: `None` when shared (no [`AGENT_KEY`], or
    /// null), the agent's name, or `Some("")` for an `agent` value that is not text (owned
    /// by no agent one can name, so only everyone's view shows it).
    pub(crate) fn owner(&self) -> Option<&str> {
        match self.metadata.get(AGENT_KEY) {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(agent)) => Some(agent.as_str()),
            Some(_) => Some(""),
        }
    }

    /// The reference that finds exactly this memory: `collection/id`.
    pub fn reference(&self) -> MemoryRef {
        MemoryRef::new(self.collection.clone(), self.id.clone())
    }

    /// A short, cheap view of this memory for listings.
    pub fn summary_view(&self) -> MemorySummary {
        MemorySummary {
            reference: self.reference(),
            id: self.id.clone(),
            collection: self.collection.clone(),
            title: self.title.clone(),
            kind: self.kind.clone(),
            status: self.status,
            tags: self.tags.clone(),
            category: self.category.clone(),
            created_at: self.created_at,
            updated_at: self.updated_at,
            version: self.version,
        }
    }
}

/// The listing form of a memory: identity and the fields people sort and filter by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct MemorySummary {
    /// `collection/id`: finds exactly this memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The memory's id.
    pub id: MemoryId,
    /// Its collection.
    pub collection: Collection,
    /// Its title.
    pub title: String,
    /// Its type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Its status.
    pub status: Status,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it was last changed.
    pub updated_at: Timestamp,
    /// Its version.
    pub version: u64,
}

/// A memory to be stored: content plus whatever metadata the caller knows.
///
/// Nothing is validated until the memory is stored, so every setter takes plain strings and
/// the store reports a typed error for a bad value. Its serde form is the memory every
/// binding sends (`type` for [`NewMemory::kind`]); only `content` is required.
///
/// ```
/// use memcore::NewMemory;
///
/// let new = NewMemory::new("# GPU Patterns\n\nUse Metal for ...")
///     .collection("knowledge")
///     .tags(["gpu", "performance"])
///     .created_by("claude");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NewMemory {
    /// The markdown body.
    pub content: String,
    /// An explicit id; generated from title, H1 or content hash when absent.
    #[serde(default)]
    pub id: Option<String>,
    /// The collection; the store's default collection when absent.
    #[serde(default)]
    pub collection: Option<String>,
    /// The title; the first H1 or first line of content when absent.
    #[serde(default)]
    pub title: Option<String>,
    /// A one-line summary.
    #[serde(default)]
    pub summary: Option<String>,
    /// The type (`fact`, `decision`, ...).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The initial status (default active).
    #[serde(default)]
    pub status: Option<Status>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Category.
    #[serde(default)]
    pub category: Option<String>,
    /// Why it was created.
    #[serde(default)]
    pub context: Option<String>,
    /// Related ids or references.
    #[serde(default)]
    pub related_to: Vec<String>,
    /// Project name.
    #[serde(default)]
    pub project: Option<String>,
    /// Priority label.
    #[serde(default)]
    pub priority: Option<String>,
    /// Author.
    #[serde(default)]
    pub created_by: Option<String>,
    /// Importance, 0.0 to 1.0.
    #[serde(default)]
    pub importance: Option<f64>,
    /// Extra frontmatter keys.
    #[serde(default)]
    pub metadata: Metadata,
    /// Creation time; now when absent (for imports that keep their original dates).
    #[serde(default)]
    pub created_at: Option<Timestamp>,
    /// The memory's vector, if you embed memories yourself: the vector index takes it
    /// instead of embedding the memory. Not stored in the memory: it must come from the
    /// store's embedder (the built-in model, or the one the store was opened with), the same
    /// dimension with finite values, because whatever indexes the memory again (a later
    /// update of it, a rebuild of the indexes) embeds it with that embedder.
    #[serde(default)]
    pub vector: Option<Vec<f32>>,
}

macro_rules! option_setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty),* $(,)?) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, value: impl Into<$ty>) -> Self {
                self.$name = Some(value.into());
                self
            }
        )*
    };
}
pub(crate) use option_setters;

impl NewMemory {
    /// A new memory with this markdown content and nothing else set.
    pub fn new(content: impl Into<String>) -> Self {
        Self { content: content.into(), ..Self::default() }
    }

    option_setters! {
        /// Sets an explicit id.
        id: String,
        /// Sets the collection.
        collection: String,
        /// Sets the title.
        title: String,
        /// Sets the summary.
        summary: String,
        /// Sets the type.
        kind: String,
        /// Sets the initial status.
        status: Status,
        /// Sets the category.
        category: String,
        /// Sets why the memory was created.
        context: String,
        /// Sets the project.
        project: String,
        /// Sets the priority label.
        priority: String,
        /// Sets the author.
        created_by: String,
        /// Sets the importance (0.0 to 1.0).
        importance: f64,
        /// Sets the creation time.
        created_at: Timestamp,
    }

    /// A new memory from a markdown document that may start with YAML frontmatter (a file
    /// being imported): the frontmatter supplies the metadata, the rest the content.
    ///
    /// ```
    /// use memcore::NewMemory;
    ///
    /// let new = NewMemory::from_markdown("---\ntags: [gpu]\n---\n# GPU notes\n")?;
    /// assert_eq!(new.tags, ["gpu"]);
    /// assert_eq!(new.content, "# GPU notes\n");
    /// # Ok::<(), memcore::Error>(())
    /// ```
    pub fn from_markdown(text: &str) -> Result<Self> {
        crate::format::frontmatter::parse_new_memory(text)
    }

    /// Sets the tags.
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the memory's vector (see [`NewMemory::vector`]).
    pub fn vector(mut self, vector: impl Into<Vec<f32>>) -> Self {
        self.vector = Some(vector.into());
        self
    }

    /// Sets the related ids or references.
    pub fn related_to<I, S>(mut self, related: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.related_to = related.into_iter().map(Into::into).collect();
        self
    }

    /// Adds one extra frontmatter key.
    pub fn meta(mut self, key: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }

    /// Validates and completes the memory: id and title derived where absent, tags cleaned,
    /// `created_at = updated_at = now` unless a creation time is given (an import keeps its
    /// dates), version 1.
    pub fn into_memory(
        self,
        default_collection: &Collection,
        limits: &Limits,
        now: Timestamp,
    ) -> Result<Memory> {
        limits.check_content(&self.content)?;
        if let Some(summary) = &self.summary {
            limits.check_summary(summary)?;
        }
        if let Some(importance) = self.importance {
            Limits::check_importance(importance)?;
        }
        Limits::check_metadata(&self.metadata)?;
        let collection = match self.collection {
            Some(name) => Collection::new(name)?,
            None => default_collection.clone(),
        };
        let title = non_blank(self.title);
        let id = match self.id {
            Some(id) => MemoryId::new(id)?,
            None => MemoryId::generate(title.as_deref(), &self.content),
        };
        let title = title.unwrap_or_else(|| crate::format::derive_title(&self.content, &id));
        let created_at = self.created_at.map_or(now, |t| t.trunc_subsecs(0));
        Ok(Memory {
            id,
            collection,
            title,
            summary: non_blank(self.summary),
            kind: non_blank(self.kind),
            status: self.status.unwrap_or_default(),
            tags: clean_list(self.tags),
            category: non_blank(self.category),
            context: non_blank(self.context),
            related_to: clean_list(self.related_to),
            project: non_blank(self.project),
            priority: non_blank(self.priority),
            created_by: non_blank(self.created_by),
            created_at,
            updated_at: created_at,
            importance: self.importance,
            version: 1,
            metadata: self.metadata,
            content: self.content,
        })
    }
}

/// `None` for absent or blank strings, else the trimmed string.
pub(crate) fn non_blank(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// Trimmed, non-empty entries in their first-seen order, without duplicates.
pub(crate) fn clean_list(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let item = item.trim();
        if !item.is_empty() && !out.iter().any(|seen| seen == item) {
            out.push(item.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(new: NewMemory) -> Result<Memory> {
        new.into_memory(&Collection::default(), &Limits::default(), now())
    }

    #[test]
    fn derives_id_title_and_defaults() {
        let memory =
            build(NewMemory::new("# GPU Patterns\n\nbody").tags([" a", "b", "a", ""])).unwrap();
        assert_eq!(memory.id.as_str(), "gpu-patterns");
        assert_eq!(memory.title, "GPU Patterns");
        assert_eq!(memory.collection.as_str(), "memory");
        assert_eq!(memory.tags, ["a", "b"]);
        assert_eq!(memory.version, 1);
        assert_eq!(memory.status, Status::Active);
        assert_eq!(memory.created_at, memory.updated_at);
    }

    #[test]
    fn rejects_bad_input() {
        let limits = Limits { max_content_bytes: 10, ..Limits::default() };
        let too_big = NewMemory::new("x".repeat(11));
        let err = too_big.into_memory(&Collection::default(), &limits, now()).unwrap_err();
        assert!(err.to_string().contains("content too large: 11 bytes (max 10)"));
        assert!(build(NewMemory::new("  \n")).is_err());
        assert!(build(NewMemory::new("x").id("../x")).is_err());
        assert!(build(NewMemory::new("x").collection(".trash")).is_err());
        assert!(build(NewMemory::new("x").summary("s".repeat(101))).is_err());
        assert!(build(NewMemory::new("x").importance(1.5)).is_err());
        assert!(build(NewMemory::new("x").importance(f64::NAN)).is_err());
        assert!(build(NewMemory::new("x").meta("version", "abc")).is_err());
        assert!(build(NewMemory::new("x").meta(" ", 1)).is_err());
    }
}
