//! The request and result records of context composition.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::budget::{Budget, BudgetMode, BudgetTier};
use super::tokens::Tokenizer;
use crate::{MemoryRef, ScoreParts, SearchMode, Timestamp};

/// How a composed context is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextFormat {
    /// Seed 002's `<memory_context>` block, for a system prompt.
    #[default]
    Xml,
    /// Markdown headings and paragraphs.
    Markdown,
}

/// What [`crate::Memcore::compose`] assembles: working memory plus what a query finds, within
/// a token budget.
///
/// ```
/// use memcore::compose::ComposeRequest;
///
/// let request = ComposeRequest::new("how do we deploy the API?").budget(1500);
/// assert_eq!(request.budget, Some(1500));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct ComposeRequest {
    /// The task or prompt: what semantic context is searched for (none when empty).
    pub query: String,
    /// The total budget in tokens, frame included (split 45/45/10 between working memory,
    /// semantic context and frame). Give this or `tier`, or neither for `mode`'s choice.
    pub budget: Option<usize>,
    /// One of seed 002's tiers instead of a total.
    pub tier: Option<BudgetTier>,
    /// With neither budget nor tier: `adaptive` picks the tier by the store's size, `fixed`
    /// takes `medium`.
    pub mode: BudgetMode,
    /// `xml` (default) or `markdown`.
    pub format: ContextFormat,
    /// How tokens are counted: `estimate` (default) or `cl100k`.
    pub tokenizer: Tokenizer,
    /// The collections of working memory's active blockers (default `blockers`).
    pub blocker_collections: Vec<String>,
    /// The collections of working memory's recent decisions (default `decisions`).
    pub decision_collections: Vec<String>,
    /// How many recent decisions working memory considers (default 5).
    pub recent_decisions: Option<usize>,
    /// Leave working memory out.
    pub no_working_memory: bool,
    /// Only these collections in the semantic context (all when empty).
    pub collections: Vec<String>,
    /// How the semantic context is searched (default hybrid).
    pub search_mode: SearchMode,
    /// How many search hits are considered (default 20).
    pub candidates: Option<usize>,
}

impl ComposeRequest {
    /// A request for `query` with the defaults.
    pub fn new(query: impl Into<String>) -> Self {
        Self { query: query.into(), ..Self::default() }
    }

    /// A total budget in tokens.
    pub fn budget(mut self, tokens: usize) -> Self {
        self.budget = Some(tokens);
        self
    }

    /// One of seed 002's tiers as the budget.
    pub fn tier(mut self, tier: BudgetTier) -> Self {
        self.tier = Some(tier);
        self
    }

    /// The output format.
    pub fn format(mut self, format: ContextFormat) -> Self {
        self.format = format;
        self
    }

    /// The tokenizer budgets are counted with.
    pub fn tokenizer(mut self, tokenizer: Tokenizer) -> Self {
        self.tokenizer = tokenizer;
        self
    }
}

/// The part of the context a memory is a candidate for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// Active blockers, recent decisions, pinned memories.
    Working,
    /// What the query finds.
    Semantic,
}

/// Why a memory was considered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CandidateSource {
    /// Pinned: importance 1.0 or a `##keepit1.00##` marker.
    Pinned,
    /// An active memory of a blocker collection.
    Blocker,
    /// One of the most recent decisions.
    Decision,
    /// A hit of the search for the query.
    Search,
}

/// What became of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// In the context, whole.
    Included,
    /// In the context, cut at a sentence (or word) boundary to fit.
    Truncated,
    /// Already in the context through an earlier candidate.
    Duplicate,
    /// Did not fit what was left of its section's budget, even cut.
    OverBudget,
}

/// One memory composition considered, and what became of it: the manifest that lets a caller
/// replay why each memory entered the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ManifestEntry {
    /// The memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// Its title.
    pub title: String,
    /// The section it was a candidate for.
    pub section: Section,
    /// Why it was considered.
    pub source: CandidateSource,
    /// Its place among its source's candidates, from 1 (search rank for `search`).
    pub rank: usize,
    /// Its search score, for `search` candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// How the search score came about, for `search` candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<ScoreParts>,
    /// What became of it.
    pub outcome: Outcome,
    /// Its label in the context (`M1`, `M2`, ...), when included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Tokens the whole memory would take, rendered.
    pub tokens: usize,
    /// Tokens it takes in the context (0 unless included).
    pub tokens_used: usize,
    /// Tokens left in its section after the decision.
    pub section_left: usize,
    /// Tokens left of the whole budget after the decision.
    pub budget_left: usize,
}

/// A memory in the composed context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ContextItem {
    /// Its label (`M1`, ...), for citation.
    pub label: String,
    /// The memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// Its section.
    pub section: Section,
    /// Tokens it takes, rendered.
    pub tokens: usize,
    /// Whether its content was cut to fit.
    pub truncated: bool,
}

/// What [`crate::Memcore::compose`] returns: the context, what is in it, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ComposedContext {
    /// The context to put in a prompt.
    pub text: String,
    /// Its format.
    pub format: ContextFormat,
    /// Its tokens, as counted by `tokenizer` (never more than `budget.total`).
    pub tokens: usize,
    /// The budget it was built within.
    pub budget: Budget,
    /// The tokenizer tokens were counted with.
    pub tokenizer: Tokenizer,
    /// The memories in it, in order.
    pub items: Vec<ContextItem>,
    /// Every candidate considered, in the order considered, and what became of it.
    pub manifest: Vec<ManifestEntry>,
    /// When it was composed.
    pub composed_at: Timestamp,
    /// Things the caller should know (e.g. that semantic search fell back to text).
    pub warnings: Vec<String>,
}
