//! Search: [`Query`] in, [`SearchResults`] out. Modes semantic, text and hybrid (weighted
//! reciprocal rank fusion: `1/(5 + text rank) + 0.7/(5 + vector rank)`), filters pushed into the indexes, `key=value` filters checked on the
//! stored memory, an optional recency boost, and score parts on every hit.

mod authors;
mod dates;
pub(crate) mod engine;
mod fusion;
mod neighbours;
mod query;
pub(crate) mod query_cache;

pub use query::{Hit, MAX_LIMIT, Query, Recency, ScoreParts, SearchMode, SearchResults};
