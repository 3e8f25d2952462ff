//! The request and result records of the decay engine's operations (`transition`,
//! `keepit_list`, `keepit_set`, `keepit_preview`; `lifecycle` takes
//! [`super::LifecycleOptions`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::keepit::{Aggressiveness, DEFAULT_MAX_DISTANCE, KeepitMarker, PreviewSettings};
use crate::{Error, MemoryRef, Result, Status};

/// The `transition` request: move a memory to another status.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct TransitionRequest {
    /// The memory: `collection/id`, or its id alone.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The status to move to; must be allowed from the current one.
    pub status: Status,
}

/// Where keepit markers are read from: a stored memory's content or a text given directly
/// (exactly one of the two). The `keepit_list` request.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct KeepitSource {
    /// A memory whose content to read.
    #[serde(rename = "ref", default)]
    pub reference: Option<MemoryRef>,
    /// A text to read instead.
    #[serde(default)]
    pub text: Option<String>,
}

impl KeepitSource {
    /// A source reading the memory `reference` names.
    pub fn memory(reference: MemoryRef) -> Self {
        Self { reference: Some(reference), text: None }
    }

    /// A source reading `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Self { reference: None, text: Some(text.into()) }
    }
}

/// The memory or the text a keepit request names, or a validation error unless it names
/// exactly one of them.
pub(crate) fn one_source<'r, 't>(
    reference: Option<&'r MemoryRef>,
    text: Option<&'t str>,
) -> Result<std::result::Result<&'r MemoryRef, &'t str>> {
    match (reference, text) {
        (Some(reference), None) => Ok(Ok(reference)),
        (None, Some(text)) => Ok(Err(text)),
        _ => Err(Error::validation(
            "give either a memory (ref) or a text, not both and not neither",
            "name the memory whose markers to read, or pass the text itself",
        )),
    }
}

/// What `keepit_list` returns.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct KeepitMarkers {
    /// The markers, in text order.
    pub markers: Vec<KeepitMarker>,
}

/// The `keepit_set` request: change the weight of one marker of a memory in place.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct KeepitSetRequest {
    /// The memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The marker's index, from 0, as `keepit_list` numbers them.
    pub index: usize,
    /// The new weight: clamped to 0.00..1.00 and rounded to two decimals.
    pub weight: f64,
}

/// The `keepit_preview` request: which markers of a memory or text survive a compression
/// at each session distance.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct KeepitPreviewRequest {
    /// A memory whose content to preview.
    #[serde(rename = "ref", default)]
    pub reference: Option<MemoryRef>,
    /// A text to preview instead.
    #[serde(default)]
    pub text: Option<String>,
    /// The compression ratio (30 for 30:1), at least 1.
    pub ratio: f64,
    /// `light`, `moderate` or `aggressive`; by default the ratio's level (below 6 light,
    /// below 16 moderate, else aggressive).
    #[serde(default)]
    pub aggressiveness: Option<Aggressiveness>,
    /// Preview session distances 1 to this (default 10).
    #[serde(default = "default_max_distance")]
    pub max_distance: u32,
}

fn default_max_distance() -> u32 {
    DEFAULT_MAX_DISTANCE
}

impl KeepitPreviewRequest {
    /// A preview of `source` at `ratio`:1 with the default aggressiveness and distances.
    pub fn new(source: KeepitSource, ratio: f64) -> Self {
        Self {
            reference: source.reference,
            text: source.text,
            ratio,
            aggressiveness: None,
            max_distance: DEFAULT_MAX_DISTANCE,
        }
    }

    /// The compression settings.
    pub fn settings(&self) -> PreviewSettings {
        PreviewSettings {
            ratio: self.ratio,
            aggressiveness: self.aggressiveness,
            max_distance: self.max_distance,
        }
    }
}
