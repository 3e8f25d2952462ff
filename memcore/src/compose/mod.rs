//! The composition engine: what goes into the block of context an agent puts in its prompt.
//!
//! [`crate::Memcore::compose`] gathers working memory (pinned memories, active blockers,
//! recent decisions) and the semantic context a query finds, and the assembler fits them into
//! a token budget (seed 002's tiers, or a total) counted by a [`TokenCounter`]: deduplicated,
//! cut at sentence boundaries when an item does not fit whole, never over budget, each item
//! labelled `[M1]`, `[M2]`, ... with its `collection/id`, rendered as seed 002's
//! `<memory_context>` XML or markdown. The [`ComposedContext`] carries a manifest: every
//! candidate, included or left out, and why (score parts, tokens, budget left).
//!
//! Sessions, their compression versions and multi-session composition (seed 004) are
//! [`crate::session`].

mod assemble;
mod budget;
mod render;
mod requests;
mod tokens;

pub(crate) use assemble::{Candidate, assemble};
pub use budget::{Budget, BudgetMode, BudgetTier};
pub use requests::{
    CandidateSource, ComposeRequest, ComposedContext, ContextFormat, ContextItem, ManifestEntry,
    Outcome, Section,
};
pub use tokens::{Cl100kCounter, EstimateCounter, TokenCounter, Tokenizer, truncate_to_tokens};
