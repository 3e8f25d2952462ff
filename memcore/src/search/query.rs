//! [`Query`], what a search asks, and [`SearchResults`], what it answers.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::indexed::Maintenance;
use crate::links::LinkEdge;
use crate::{Error, Filter, MemorySummary, Result, Status, Timestamp};

/// The most hits one search returns.
pub const MAX_LIMIT: usize = 1_000;

/// How a search ranks memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// BM25 full-text and vector similarity, fused by reciprocal rank (the default).
    #[default]
    Hybrid,
    /// Vector similarity of embeddings only.
    Semantic,
    /// BM25 full-text only.
    Text,
}

impl SearchMode {
    /// The lower-case name: `hybrid`, `semantic` or `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hybrid => "hybrid",
            Self::Semantic => "semantic",
            Self::Text => "text",
        }
    }
}

impl fmt::Display for SearchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for SearchMode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "hybrid" => Ok(Self::Hybrid),
            "semantic" => Ok(Self::Semantic),
            "text" => Ok(Self::Text),
            _ => Err(Error::validation(
                format!("unknown search mode {s:?}"),
                "use one of: hybrid, semantic, text",
            )),
        }
    }
}

/// The recency boost: scores are multiplied by `(1 - weight) + weight * relevance`, where
/// relevance is the decay engine's ([`crate::decay::DecayConfig`]): `0.5^(age / half_life)`
/// since the memory's last change, or its type's `max(floor, rate^days)` (seeds 001, 002).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Recency {
    /// Days after which relevance halves; the store's `decay.half_life_days` when unset.
    pub half_life_days: Option<f64>,
    /// How much freshness counts, 0.0 (not at all, the default) to 1.0 (fully).
    pub weight: f64,
    /// Use the per-type rates and floors of the store's `decay.types` (default true); false
    /// applies the half-life to every memory.
    pub by_type: bool,
}

impl Default for Recency {
    fn default() -> Self {
        Self { half_life_days: None, weight: 0.0, by_type: true }
    }
}

/// A search: the text, how to rank, and which memories qualify. Its serde form is the search
/// request of every binding (`types` for [`Query::kinds`]); only `text` is required.
///
/// ```
/// use memcore::{Query, SearchMode, Status};
///
/// let query = Query::new("how do we speed up GPU kernels?")
///     .mode(SearchMode::Hybrid)
///     .limit(5)
///     .collection("knowledge")
///     .tags_any(["gpu", "cuda"])
///     .recency(30.0, 0.2);
/// assert_eq!(query.limit, 5);
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[must_use]
#[non_exhaustive]
pub struct Query {
    /// What to look for, in natural language or keywords.
    pub text: String,
    /// How to rank.
    #[serde(default)]
    pub mode: SearchMode,
    /// At most this many hits (1 to 1,000; default 10).
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// Only these collections (all when empty).
    #[serde(default)]
    pub collections: Vec<String>,
    /// At least one of these tags.
    #[serde(default)]
    pub tags_any: Vec<String>,
    /// All of these tags.
    #[serde(default)]
    pub tags_all: Vec<String>,
    /// Only these types.
    #[serde(default, rename = "types")]
    pub kinds: Vec<String>,
    /// Only these statuses; default active and resolved (archived and tombstoned memories are
    /// hidden unless asked for).
    #[serde(default = "default_statuses")]
    pub statuses: Vec<Status>,
    /// Created at or after.
    #[serde(default)]
    pub created_after: Option<Timestamp>,
    /// Created before.
    #[serde(default)]
    pub created_before: Option<Timestamp>,
    /// Updated at or after.
    #[serde(default)]
    pub updated_after: Option<Timestamp>,
    /// Updated before.
    #[serde(default)]
    pub updated_before: Option<Timestamp>,
    /// `key=value` filters on any field or extra metadata; all must match.
    #[serde(default, deserialize_with = "crate::filter::deserialize_list")]
    #[schemars(schema_with = "crate::filter::list_schema")]
    pub filters: Vec<Filter>,
    /// Drop vector matches below this cosine similarity (semantic and hybrid modes).
    #[serde(default)]
    pub min_similarity: Option<f32>,
    /// The recency boost.
    #[serde(default)]
    pub recency: Recency,
    /// Only memories linking to this target (a memory, `ghost:<target>` or a target as links
    /// write it); each hit carries those links with their anchor context (seed 001's linked
    /// search).
    #[serde(default)]
    pub linked_to: Option<String>,
    /// Let memories linked to or from the strongest hits join the results, scored at half the
    /// hit's score (off by default: see BENCHMARKS.md).
    #[serde(default)]
    pub expand_links: bool,
    /// One agent's view: the shared memories and this agent's own (those whose `agent`
    /// metadata names it), without other agents' (per-agent memory, seed 003).
    #[serde(default)]
    pub agent: Option<String>,
    /// Only the shared memories: none an agent owns (no `agent` metadata).
    #[serde(default)]
    pub shared: bool,
    /// The query's vector, if you embed queries yourself: semantic and hybrid search use it
    /// instead of embedding `text` (which full-text search still uses). It must come from
    /// the store's embedder (the built-in model, or the one the store was opened with): the
    /// same dimension, finite values.
    #[serde(default)]
    pub vector: Option<Vec<f32>>,
}

/// Hits a search returns unless asked otherwise.
const DEFAULT_LIMIT: usize = 10;

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

fn default_statuses() -> Vec<Status> {
    vec![Status::Active, Status::Resolved]
}

impl Query {
    /// A hybrid search for `text` with the defaults.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            mode: SearchMode::default(),
            limit: DEFAULT_LIMIT,
            collections: Vec::new(),
            tags_any: Vec::new(),
            tags_all: Vec::new(),
            kinds: Vec::new(),
            statuses: default_statuses(),
            created_after: None,
            created_before: None,
            updated_after: None,
            updated_before: None,
            filters: Vec::new(),
            min_similarity: None,
            recency: Recency::default(),
            linked_to: None,
            expand_links: false,
            agent: None,
            shared: false,
            vector: None,
        }
    }

    /// Searches with this vector of the query instead of embedding its text (see
    /// [`Query::vector`]). With vectors of your own, open the store with an embedder of the
    /// same model (for the memories you store without one, and for rebuilds):
    ///
    /// ```
    /// use std::sync::Arc;
    /// use memcore::{CallbackEmbedder, Memcore, NewMemory, Query, SearchMode};
    ///
    /// // A toy two-dimensional model: [mentions of "gpu", 1].
    /// let model = CallbackEmbedder::new("toy-v1", 2, Arc::new(|texts: &[&str]| {
    ///     Ok(texts.iter().map(|t| vec![t.matches("gpu").count() as f32, 1.0]).collect())
    /// }))?;
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::builder().path(dir.path()).embedder(Arc::new(model)).open()?;
    /// memcore.put(NewMemory::new("Shaders compile at start-up.").id("shaders").vector([3.0, 1.0]))?;
    /// memcore.put(NewMemory::new("Lunch is at noon.").id("lunch"))?; // embedded: [0, 1]
    /// let query = Query::new("").mode(SearchMode::Semantic).vector([1.0, 0.0]);
    /// assert_eq!(memcore.search(&query)?.hits[0].memory.id.as_str(), "shaders");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn vector(mut self, vector: impl Into<Vec<f32>>) -> Self {
        self.vector = Some(vector.into());
        self
    }

    /// Searches `agent`'s view: the shared memories and `agent`'s own.
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// Searches only the shared memories (none an agent owns).
    pub fn shared(mut self, shared: bool) -> Self {
        self.shared = shared;
        self
    }

    /// Whether `memory` is in the view the query asks for: everyone's (the default), one
    /// agent's (shared and its own) or the shared one. A memory whose `agent` metadata is not
    /// text (a list, a number) is owned, but by no agent a view can name: only everyone's
    /// view shows it.
    pub fn sees(&self, memory: &crate::Memory) -> bool {
        match (memory.owner(), self.agent.as_deref()) {
            (None, _) => true,
            (Some(_), _) if self.shared => false,
            (Some(owner), Some(agent)) => owner == agent,
            (Some(_), None) => true,
        }
    }

    /// Searches only the memories linking to `target` (a memory, `ghost:<target>` or a
    /// target as links write it).
    pub fn linked_to(mut self, target: impl Into<String>) -> Self {
        self.linked_to = Some(target.into());
        self
    }

    /// Lets memories linked to or from the strongest hits join the results.
    pub fn expand_links(mut self, expand: bool) -> Self {
        self.expand_links = expand;
        self
    }

    /// Sets the ranking mode.
    pub fn mode(mut self, mode: SearchMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets the number of hits.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Adds a collection to search in.
    pub fn collection(mut self, collection: impl Into<String>) -> Self {
        self.collections.push(collection.into());
        self
    }

    /// Requires at least one of these tags.
    pub fn tags_any<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags_any = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Requires all of these tags.
    pub fn tags_all<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags_all = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a type to search in.
    pub fn kind(mut self, kind: impl Into<String>) -> Self {
        self.kinds.push(kind.into());
        self
    }

    /// Sets the statuses to search in (replacing the default active + resolved).
    pub fn statuses<I: IntoIterator<Item = Status>>(mut self, statuses: I) -> Self {
        self.statuses = statuses.into_iter().collect();
        self
    }

    /// Only memories created in `[from, to)`.
    pub fn created_between(mut self, from: Option<Timestamp>, to: Option<Timestamp>) -> Self {
        self.created_after = from;
        self.created_before = to;
        self
    }

    /// Only memories updated in `[from, to)`.
    pub fn updated_between(mut self, from: Option<Timestamp>, to: Option<Timestamp>) -> Self {
        self.updated_after = from;
        self.updated_before = to;
        self
    }

    /// Adds a `key=value[,value...]` filter.
    pub fn filter(mut self, expr: &str) -> Result<Self> {
        self.filters.push(expr.parse()?);
        Ok(self)
    }

    /// Drops vector matches below this cosine similarity.
    pub fn min_similarity(mut self, min: f32) -> Self {
        self.min_similarity = Some(min);
        self
    }

    /// Boosts recent memories: half-life in days and weight 0.0 to 1.0 (memories of a type
    /// with its own decay rate keep it; see [`Recency::by_type`]).
    pub fn recency(mut self, half_life_days: f64, weight: f64) -> Self {
        self.recency = Recency { half_life_days: Some(half_life_days), weight, ..self.recency };
        self
    }

    /// Checks the query before any work: non-blank text (a vector alone will do in semantic
    /// mode), limit, weights, date ranges, a vector's values.
    pub fn validate(&self) -> Result<()> {
        let by_vector_alone = self.vector.is_some() && self.mode == SearchMode::Semantic;
        if self.text.trim().is_empty() && !by_vector_alone {
            return Err(Error::validation(
                "the search text is empty",
                "give some words to search for (or a vector, in semantic mode); to enumerate memories use list",
            ));
        }
        if let Some(vector) = &self.vector
            && (vector.is_empty() || vector.iter().any(|x| !x.is_finite()))
        {
            return Err(Error::validation(
                "the query's vector is empty or holds a value that is not a finite number",
                "give the vector the store's embedder makes for the query",
            ));
        }
        if self.limit == 0 || self.limit > MAX_LIMIT {
            return Err(Error::validation(
                format!("limit {} is outside 1..={MAX_LIMIT}", self.limit),
                format!("ask for between 1 and {MAX_LIMIT} hits; page with list for more"),
            ));
        }
        let Recency { half_life_days, weight, .. } = self.recency;
        if let Some(days) = half_life_days {
            crate::decay::check_half_life(days).map_err(|e| {
                Error::validation(format!("invalid recency boost: {e}"), e.recovery())
            })?;
        }
        if !(0.0..=1.0).contains(&weight) {
            return Err(Error::validation(
                format!("invalid recency weight {weight}"),
                "give a weight from 0.0 (no boost) to 1.0 (scores proportional to freshness)",
            ));
        }
        if let Some(min) = self.min_similarity
            && !(-1.0..=1.0).contains(&min)
        {
            return Err(Error::validation(
                format!("min_similarity {min} is outside -1.0..=1.0"),
                "cosine similarity lies between -1 and 1; 0.3 is a typical threshold",
            ));
        }
        if self.shared && self.agent.is_some() {
            return Err(Error::validation(
                "a search cannot ask for one agent's view and the shared view at once",
                "give `agent` for its view (shared memories included), or `shared` alone",
            ));
        }
        if let Some(agent) = &self.agent
            && (agent.trim().is_empty() || agent.chars().any(char::is_control))
        {
            return Err(Error::validation(
                format!("invalid agent {agent:?}"),
                "name the agent as its memories' `agent` metadata does, on one line",
            ));
        }
        for (from, to, what) in [
            (self.created_after, self.created_before, "created"),
            (self.updated_after, self.updated_before, "updated"),
        ] {
            if let (Some(from), Some(to)) = (from, to)
                && from >= to
            {
                return Err(Error::validation(
                    format!("empty {what} range: {from} is not before {to}"),
                    "give the earlier time first",
                ));
            }
        }
        Ok(())
    }
}

/// Why a hit ranks where it does.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ScoreParts {
    /// 1-based rank in the full-text results, if it was there.
    pub text_rank: Option<usize>,
    /// BM25 score, if it was in the full-text results.
    #[serde(serialize_with = "short_f32")]
    pub text_score: Option<f32>,
    /// 1-based rank in the vector results, if it was there.
    pub vector_rank: Option<usize>,
    /// Cosine similarity to the query, if it was in the vector results.
    #[serde(serialize_with = "short_f32")]
    pub vector_similarity: Option<f32>,
    /// The score before the recency boost: RRF for hybrid, BM25 (times `date_factor`) for
    /// text, similarity for semantic, plus `neighbours`; for a memory that joined through a
    /// link, its `link` share.
    pub base: f64,
    /// The recency factor multiplied in (1.0 without boost).
    pub recency: f64,
    /// For a memory that joined through a link to a strong hit (`expand_links`), the score it
    /// took from that hit (its `base`).
    pub link: Option<f64>,
    /// For a conversation turn ([`crate::TURN_KEY`]): what the turns up to two before and
    /// after it, found by the same search, added to its `base`.
    pub neighbours: Option<f64>,
    /// For a conversation turn that asks: the share of its words in questions. Its own
    /// score counted `1 - question_share` of itself in `base` (what its neighbours lent
    /// counts in full).
    pub question_share: Option<f64>,
    /// For a memory not by a person the search names, when it names an author of the
    /// store ("what did Ana say about ...?"): the factor its `base` was multiplied by (0.7).
    pub author_factor: Option<f64>,
    /// For a memory created on a date the query names ("on 16 June, 2023", "in May 2022"):
    /// how many times its BM25 score counts in a full-text search (it also ranks higher on
    /// the full-text side of a hybrid one).
    pub date_factor: Option<f64>,
}

/// An `f32` serialised as the shortest `f64` that reads back as the same `f32`, so that
/// JSON carries `0.71` however it is produced (to text, or to a `serde_json::Value`, which
/// would otherwise widen it to `0.7099999785423279`); no precision is lost.
fn short_f32<S: serde::Serializer>(x: &Option<f32>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match x {
        Some(x) => s.serialize_f64(x.to_string().parse().unwrap_or_else(|_| f64::from(*x))),
        None => s.serialize_none(),
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Hit {
    /// The memory found.
    pub memory: MemorySummary,
    /// The final score: `parts.base * parts.recency`.
    pub score: f64,
    /// How the score came about.
    pub parts: ScoreParts,
    /// With `linked_to`: the hit's links to the target, with their anchor context.
    pub links: Vec<LinkEdge>,
}

/// What a search returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SearchResults {
    /// The hits, best first.
    pub hits: Vec<Hit>,
    /// The mode actually used (semantic and hybrid fall back to text without the model).
    pub mode: SearchMode,
    /// Things the caller should know, e.g. that the embedding model is missing.
    pub warnings: Vec<String>,
    /// Index work the search did first (finishing what a crashed writer left, bringing the
    /// vector index level with the store); usually empty.
    pub maintenance: Vec<Maintenance>,
}
