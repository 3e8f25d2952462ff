//! The request and result records of the link operations (`links` takes a `RefRequest`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::MemoryRecord;
use crate::{MemoryRef, TrashEntry};

/// One edge of the link graph: a memory's link to a memory or to a ghost node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct LinkEdge {
    /// The memory holding the link.
    pub source: MemoryRef,
    /// The link's normalised target, as written.
    pub target: String,
    /// The node linked: a memory's `collection/id` when the target names one, else
    /// `ghost:<target>`.
    pub node: String,
    /// Whether the target is a ghost node (no memory of that name).
    pub ghost: bool,
    /// The label, if the link has one (`[[target|label]]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The edge type inferred from the anchor context.
    #[serde(rename = "type")]
    pub edge_type: String,
    /// About 100 characters either side of the link, `...` where cut.
    pub anchor: String,
    /// Where the link starts in the source's content, in characters.
    pub start_char: usize,
    /// Where it ends, in characters.
    pub end_char: usize,
}

/// What `links` and `backlinks` return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct LinkList {
    /// The edges, in content order (`links`) or by source then position (`backlinks`).
    pub links: Vec<LinkEdge>,
}

/// The `backlinks` request: every memory linking to a target.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct BacklinksRequest {
    /// A memory (`collection/id` or id), a ghost node (`ghost:src/server.py`) or a target as
    /// written in links (`src/server.py`).
    pub target: String,
}

/// The `append` request: add text to the end of a memory (a new version).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AppendRequest {
    /// The memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The markdown to add, after a blank line.
    pub text: String,
}

/// The `merge` request: several memories become one.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct MergeRequest {
    /// The memories to merge, in the order their content appears.
    pub refs: Vec<MemoryRef>,
    /// The merged memory: `collection/id`, or an id (in the first source's collection). It
    /// must not exist yet.
    pub into: MemoryRef,
    /// Text opening the merged memory, before the sources' content.
    #[serde(default)]
    pub summary: Option<String>,
}

impl MergeRequest {
    /// A request to merge `refs` into the new memory `into`, without a summary.
    pub fn new(refs: Vec<MemoryRef>, into: MemoryRef) -> Self {
        Self { refs, into, summary: None }
    }

    /// Opens the merged memory with `summary`.
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }
}

/// What `merge` did.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct MergeResult {
    /// The merged memory as stored.
    pub memory: MemoryRecord,
    /// The sources, moved to the trash.
    pub trashed: Vec<TrashEntry>,
    /// Other memories whose links to a source now point to the merged memory.
    pub repointed: Vec<MemoryRef>,
}
