//! The records of a search across tiers ([`crate::Memcore::recall`], seed 003's retrieval
//! flow): which tiers to search, and the labelled hits (`[M1]`, `[M2]`, ...) with their tier
//! and provenance.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::HotEvidence;
use crate::{Result, SearchMode, Timestamp};

/// Which tiers a recall searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TierScope {
    /// The warm tier first; the cold archive fills the places the warm tier leaves, that is
    /// those not taken by warm hits matching the query's words (only the warm tier when the
    /// store is not tiered).
    #[default]
    Auto,
    /// Only the warm tier: the indexed memories.
    Warm,
    /// Only the cold archive: transcripts and demoted memories.
    Cold,
    /// Both, their rankings interleaved rank by rank (their scores do not compare).
    All,
}

impl TierScope {
    /// Every scope, in the order the CLI lists them.
    pub const ALL: [TierScope; 4] = [Self::Auto, Self::Warm, Self::Cold, Self::All];

    /// Whether the scope reads the cold archive whatever the warm tier finds.
    pub(crate) fn needs_cold(self) -> bool {
        matches!(self, Self::Cold | Self::All)
    }
}

/// The tier a recalled piece of evidence came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// The warm tier: a memory of the indexed store.
    Warm,
    /// The cold archive: a turn of an ended session, or a demoted memory.
    Cold,
}

/// A search across the tiers of a store ([`crate::Memcore::recall`]).
///
/// ```
/// use memcore::{RecallRequest, TierScope};
///
/// let request = RecallRequest::new("who owns the release checklist")
///     .tier(TierScope::All)
///     .session("standup-2026-11-27");
/// assert_eq!(request.limit, 10);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[must_use]
#[non_exhaustive]
pub struct RecallRequest {
    /// What to look for, in natural language or keywords.
    pub text: String,
    /// Which tiers to search (default `auto`: warm first, cold to fill up).
    #[serde(default)]
    pub tier: TierScope,
    /// At most this many hits (1 to 1,000; default 10).
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// How the warm tier ranks (the cold archive ranks by full text, BM25).
    #[serde(default)]
    pub mode: SearchMode,
    /// Only these collections (all when empty); cold turns belong to none, so only demoted
    /// memories of these collections are found there.
    #[serde(default)]
    pub collections: Vec<String>,
    /// One agent's view: shared evidence and this agent's own, without other agents'.
    #[serde(default)]
    pub agent: Option<String>,
    /// Only shared evidence: none an agent owns.
    #[serde(default)]
    pub shared: bool,
    /// A live session to record the retrieval in: its labels then number the session's
    /// evidence (a source keeps its label for the whole session), and its retrieval history
    /// gains the query (reported when the session ends).
    #[serde(default)]
    pub session: Option<String>,
}

/// Hits a recall returns unless asked otherwise.
const DEFAULT_LIMIT: usize = 10;

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

impl RecallRequest {
    /// A recall of `text` with the defaults (tier `auto`, 10 hits, hybrid ranking).
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            tier: TierScope::default(),
            limit: DEFAULT_LIMIT,
            mode: SearchMode::default(),
            collections: Vec::new(),
            agent: None,
            shared: false,
            session: None,
        }
    }

    /// Sets the tiers to search.
    pub fn tier(mut self, tier: TierScope) -> Self {
        self.tier = tier;
        self
    }

    /// Sets the number of hits.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Sets how the warm tier ranks.
    pub fn mode(mut self, mode: SearchMode) -> Self {
        self.mode = mode;
        self
    }

    /// Adds a collection to search in.
    pub fn collection(mut self, collection: impl Into<String>) -> Self {
        self.collections.push(collection.into());
        self
    }

    /// Searches `agent`'s view: shared evidence and `agent`'s own.
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// Searches only shared evidence.
    pub fn shared(mut self, shared: bool) -> Self {
        self.shared = shared;
        self
    }

    /// Records the retrieval in the live session `session`.
    pub fn session(mut self, session: impl Into<String>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// The warm tier's part of the recall: a search with the same text, ranking, limit,
    /// collections and view.
    pub(crate) fn warm_query(&self) -> crate::Query {
        let mut query = crate::Query::new(&self.text).mode(self.mode).limit(self.limit);
        query.collections.clone_from(&self.collections);
        query.agent.clone_from(&self.agent);
        query.shared = self.shared;
        query
    }

    /// Checks the request before any work: the checks of a search with the same text,
    /// limit and view.
    pub(crate) fn validate(&self) -> Result<()> {
        self.warm_query().validate()
    }
}

/// One piece of recalled evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct RecallHit {
    /// Its label, `M1`, `M2`, ... (`Doc 1`, `Doc 2`, ... for a document's chunk): its place
    /// in these hits, or for a recall in a live session the label the session gave the
    /// source when it first recalled it.
    pub label: String,
    /// The tier it came from.
    pub tier: Tier,
    /// What it is: a memory's `collection/id` (warm) or the archive record's id (cold:
    /// `turn/<session>/<n>`, or `collection/id@<digest>` for a demoted memory).
    pub source: String,
    /// Its title: the memory's, or for a turn `<session> turn <n>`.
    pub title: String,
    /// The start of its text, on one line.
    pub excerpt: String,
    /// Its score in its own tier (hybrid or full-text for warm, BM25 for cold): scores of
    /// different tiers do not compare.
    pub score: f64,
    /// When it was written (a memory's creation, a turn's time).
    pub at: Timestamp,
    /// The session it came from, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The agent who owns it (an agent's memory: its `agent` metadata); `None` for shared
    /// evidence, turns included (a transcript is the whole session's; the excerpt names the
    /// speaker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The originals it stands for: a digest's compacted memories, a demoted memory's ref.
    #[serde(default)]
    pub origins: Vec<String>,
    /// The document it is a chunk of, for a document's chunk (labelled `Doc <n>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// Its whole text (a memory's content, an archived record's text), read with it: what
    /// a retrieval appends to a session (not part of the record).
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) text: String,
}

impl RecallHit {
    /// The hit as a live session records it (the session gives the label).
    pub(crate) fn evidence(&self) -> HotEvidence {
        HotEvidence {
            label: String::new(),
            tier: self.tier,
            source: self.source.clone(),
            title: self.title.clone(),
            agent: self.agent.clone(),
            document: self.document.clone(),
            text: String::new(),
        }
    }
}

/// What a recall found, in the order to present it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct RecallResults {
    /// The hits. For `auto`: the warm hits that matched the query's words, then the cold
    /// archive's (filling the places left), then warm hits by meaning alone; for `all` the
    /// two tiers' rankings interleaved.
    pub hits: Vec<RecallHit>,
    /// How the warm tier ranked (text when semantic search was unavailable, or when only the
    /// cold archive was searched: it ranks by full text).
    pub mode: SearchMode,
    /// What the caller should know (the warm tier's warnings; for `auto`, a cold archive
    /// that could not be searched).
    pub warnings: Vec<String>,
}
