//! The link graph (seed 001, phases 3-5): `[[wikilinks]]` in memories, ghost nodes for
//! targets that are not memories, edge types inferred from the anchor context, and the text
//! side of appending and merging memories.
//!
//! The graph is derived data kept in the full-text index: each link is one raw term
//! ([`term`](self) module: `target ␟ source ␟ position ␟ label ␟ anchor`), so it is written,
//! journaled, verified, repaired and rebuilt with the text entry of its memory, and the
//! backlinks of a target are one prefix scan of tantivy's term dictionary. Outgoing links are
//! read from the memory itself. Edge types are inferred when links are read, from the
//! configured rules ([`EdgeTypes`]).

mod edges;
mod extract;
pub(crate) mod graph;
pub(crate) mod merge;
mod requests;
pub(crate) mod term;

pub use edges::{DEFAULT_EDGE_TYPE, EdgeRule, EdgeTypes};
pub use extract::{ANCHOR_CHARS, Link, MAX_TARGET_CHARS, extract_links, normalize_target};
pub use requests::{
    AppendRequest, BacklinksRequest, LinkEdge, LinkList, MergeRequest, MergeResult,
};

/// The prefix naming a ghost node: `ghost:<target>`.
pub const GHOST_PREFIX: &str = "ghost:";
