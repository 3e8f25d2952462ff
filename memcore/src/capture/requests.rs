//! The `capture` request record.

use schemars::JsonSchema;
use serde::Deserialize;

/// The `capture` request: a text to look for memorable things in, and what to do with them.
///
/// With `summary` (and `namespace`), the whole text is one explicit capture, as seed 002's
/// `/capture --namespace=... --summary=...` command makes it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CaptureRequest {
    /// The text: a prompt, a message, notes. Markers (`[remember]`,
    /// `[remember:<namespace>]`) mark what to capture; without markers, signal phrases
    /// ("we decided to", "TIL", "blocked by", ...) are looked for.
    pub text: String,
    /// Put every capture in this namespace (one of `capture.namespaces`) instead of the one
    /// its signal suggests (a marker's own `[remember:<namespace>]` is kept).
    #[serde(default)]
    pub namespace: Option<String>,
    /// Capture the whole text as one memory with this one-line summary (at most
    /// `limits.max_summary_chars`); needs `namespace`.
    #[serde(default)]
    pub summary: Option<String>,
    /// Tags added to every capture.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Who wrote the text (stored as `created_by`).
    #[serde(default)]
    pub created_by: Option<String>,
    /// Compare each capture with stored memories and skip duplicates (default true).
    #[serde(default = "yes")]
    pub check_novelty: bool,
    /// Store the `auto` captures and return their refs in `stored`.
    #[serde(default)]
    pub apply: bool,
    /// With `apply`, store the `suggest` captures too.
    #[serde(default)]
    pub apply_suggested: bool,
}

/// serde's default for flags that are on unless turned off.
fn yes() -> bool {
    true
}

impl CaptureRequest {
    /// A request to decide about `text` (novelty checked, nothing stored).
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            namespace: None,
            summary: None,
            tags: Vec::new(),
            created_by: None,
            check_novelty: true,
            apply: false,
            apply_suggested: false,
        }
    }

    /// Puts every capture in `namespace`.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Captures the whole text as one memory with this summary.
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// Adds tags to every capture.
    pub fn tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Records who wrote the text.
    pub fn created_by(mut self, author: impl Into<String>) -> Self {
        self.created_by = Some(author.into());
        self
    }

    /// Turns the novelty check on or off.
    pub fn check_novelty(mut self, check: bool) -> Self {
        self.check_novelty = check;
        self
    }

    /// Stores the `auto` captures (and, with `suggested`, the `suggest` ones).
    pub fn apply(mut self, suggested: bool) -> Self {
        self.apply = true;
        self.apply_suggested = suggested;
        self
    }
}
