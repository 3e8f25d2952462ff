//! In-conversation retrieval (seed 003's retrieval flow, step 2): the request of
//! [`crate::Memcore::retrieve`] (keywords, or an agent's output holding
//! `<<retrieve: keywords>>` markers) and the labelled passages it appends to a live session.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Tier, TierScope};
use crate::capture::find_retrieve_markers;
use crate::{Error, Result, SearchMode};

/// Passages a retrieval delivers per query unless asked otherwise.
const DEFAULT_LIMIT: usize = 3;

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

/// The `retrieve` request: what to fetch into a live session's context, as `keywords` or as
/// an agent's `output` whose `<<retrieve: ...>>` markers each name keywords (one of the
/// two).
///
/// ```
/// use memcore::RetrieveRequest;
///
/// let asked = RetrieveRequest::keywords("standup-1", "rollback procedure");
/// let from_output = RetrieveRequest::output("standup-1", "Let me check. <<retrieve: rollback>>");
/// assert_eq!(asked.queries()?, ["rollback procedure"]);
/// assert_eq!(from_output.queries()?, ["rollback"]);
/// # Ok::<(), memcore::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[must_use]
#[non_exhaustive]
pub struct RetrieveRequest {
    /// The live session whose context receives the passages.
    pub session: String,
    /// What to look for.
    #[serde(default)]
    pub keywords: Option<String>,
    /// An agent's output: each `<<retrieve: keywords>>` in it (outside markdown code) is a
    /// query; none is no retrieval.
    #[serde(default)]
    pub output: Option<String>,
    /// The agent asking: its view (shared evidence and its own); one of the session's.
    #[serde(default)]
    pub agent: Option<String>,
    /// At most this many passages per query (1 to 1,000; default 3).
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// Which tiers to search (default `auto`: warm first, cold to fill up).
    #[serde(default)]
    pub tier: TierScope,
    /// How the warm tier ranks.
    #[serde(default)]
    pub mode: SearchMode,
}

impl RetrieveRequest {
    /// A retrieval of `keywords` into `session`.
    pub fn keywords(session: impl Into<String>, keywords: impl Into<String>) -> Self {
        Self::new(session.into(), Some(keywords.into()), None)
    }

    /// The retrievals the markers of an agent's `output` ask for, into `session`.
    pub fn output(session: impl Into<String>, output: impl Into<String>) -> Self {
        Self::new(session.into(), None, Some(output.into()))
    }

    fn new(session: String, keywords: Option<String>, output: Option<String>) -> Self {
        Self {
            session,
            keywords,
            output,
            agent: None,
            limit: DEFAULT_LIMIT,
            tier: TierScope::default(),
            mode: SearchMode::default(),
        }
    }

    /// The same request in `agent`'s view.
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// The same request with at most `limit` passages per query.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// The same request ranking the warm tier by `mode`.
    pub fn mode(mut self, mode: SearchMode) -> Self {
        self.mode = mode;
        self
    }

    /// The queries to run, in order: the keywords, or each marker's. Exactly one of
    /// `keywords` and `output` must be given, and keywords must not be blank.
    pub fn queries(&self) -> Result<Vec<String>> {
        match (&self.keywords, &self.output) {
            (Some(keywords), None) if !keywords.trim().is_empty() => {
                Ok(vec![keywords.trim().to_owned()])
            }
            (Some(_), None) => Err(Error::validation(
                "the keywords of a retrieval are blank",
                "say what to look for, e.g. \"rollback procedure\"",
            )),
            (None, Some(output)) => Ok(find_retrieve_markers(output)?
                .into_iter()
                .map(|marker| marker.keywords)
                .collect()),
            _ => Err(Error::validation(
                "a retrieval takes keywords or an agent's output, one of the two",
                "give keywords to look for, or the output whose <<retrieve: ...>> markers name them",
            )),
        }
    }
}

/// What a retrieval appended to a session's context.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Retrieval {
    /// The queries run, in order (none when an output held no marker).
    pub queries: Vec<String>,
    /// The passages delivered, each source once, in the order first delivered.
    pub passages: Vec<RetrievedPassage>,
    /// The passages as prompt context: `[Doc 1] Title (source)`, then the passage, each
    /// block separated by a blank line. Empty when nothing was found.
    pub context: String,
    /// What the caller should know (e.g. the model was unavailable: text ranking only).
    pub warnings: Vec<String>,
}

/// One passage a retrieval delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct RetrievedPassage {
    /// Its label in the session (`Doc 1` for a document's chunk, `M1` for anything else),
    /// the same every time the session retrieves it.
    pub label: String,
    /// The query that delivered it first.
    pub query: String,
    /// The tier it came from.
    pub tier: Tier,
    /// A memory's `collection/id` (warm) or the archive record's id (cold).
    pub source: String,
    /// Its title (a document chunk's: `Document › Section`).
    pub title: String,
    /// The document it is a chunk of, for a document's chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// The passage (at most 4,000 characters).
    pub text: String,
}

impl RetrievedPassage {
    /// The passage as a block of prompt context.
    pub(crate) fn render(&self) -> String {
        format!("[{}] {} ({})\n{}", self.label, self.title, self.source, self.text.trim())
    }
}
