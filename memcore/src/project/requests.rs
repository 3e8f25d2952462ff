//! The project operations' request and result records.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ProjectManifest, SummaryMode};
use crate::TimelineEntry;

/// The `project_init` request: the manifest to write; what it leaves out is written as the
/// store's current policy (so the manifest shows every value in force).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ProjectInitRequest {
    /// The project's id (default: the store directory's name as a slug, its parent's for a
    /// store named `.memcore`).
    #[serde(default)]
    pub project_id: Option<String>,
    /// Its name for people (default: the project id).
    #[serde(default)]
    pub display_name: Option<String>,
    /// What it is about.
    #[serde(default)]
    pub description: Option<String>,
    /// The agents its sessions have unless told otherwise.
    #[serde(default)]
    pub default_agents: Vec<String>,
    /// Turns a live session keeps verbatim.
    #[serde(default)]
    pub hot_context_turns: Option<usize>,
    /// Days a memory stays warm before compaction.
    #[serde(default)]
    pub warm_window_days: Option<u32>,
    /// Days unchanged before the lifecycle archives a memory.
    #[serde(default)]
    pub archive_after_days: Option<u32>,
    /// The summary mode (default `heuristic`).
    #[serde(default)]
    pub summary_mode: Option<SummaryMode>,
    /// Mode `command`: the program and its arguments.
    #[serde(default)]
    pub summary_command: Vec<String>,
    /// Mode `command`: its timeout in milliseconds.
    #[serde(default)]
    pub summary_timeout_ms: Option<u64>,
}

impl ProjectInitRequest {
    /// A manifest of the current policy, under the default id.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same request with a project id.
    pub fn project_id(mut self, id: impl Into<String>) -> Self {
        self.project_id = Some(id.into());
        self
    }

    /// The same request with default agents.
    pub fn default_agents<I, S>(mut self, agents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.default_agents = agents.into_iter().map(Into::into).collect();
        self
    }

    /// The same request with a summary mode (and, for `command`, the program and arguments).
    pub fn summary(mut self, mode: SummaryMode, command: Vec<String>) -> Self {
        self.summary_mode = Some(mode);
        self.summary_command = command;
        self
    }
}

/// What `project_info` shows (and `project_init` and `project_trust` return).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ProjectInfo {
    /// The project directory (documents and summary commands are relative to it).
    pub project_dir: String,
    /// Where the manifest is (or would be).
    pub manifest_path: String,
    /// The manifest, as read when the store opened; `None` without one.
    pub manifest: Option<ProjectManifest>,
    /// The policy in force: the manifest over the config.
    pub policy: ProjectPolicy,
    /// The agents: the manifest's defaults and every agent with a profile, sorted.
    pub agents: Vec<String>,
    /// How many documents are ingested.
    pub documents: usize,
    /// The newest sessions on the timeline (a tiered store's), newest first, at most 5.
    pub recent_sessions: Vec<TimelineEntry>,
    /// What to know: e.g. that a manifest written now applies from the next open.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The policy a store follows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ProjectPolicy {
    /// The backend (`file`, `tiered`, ...): the tiers' settings apply to `tiered` only.
    pub backend: String,
    /// Turns a live session keeps verbatim.
    pub hot_context_turns: usize,
    /// About how many tokens a session's summary takes.
    pub hot_summary_tokens: usize,
    /// Days a memory stays warm before compaction.
    pub warm_window_days: u32,
    /// Days unchanged before the lifecycle archives a memory.
    pub archive_after_days: f64,
    /// The summary mode; a summariser set in code comes first.
    pub summary_mode: SummaryMode,
    /// Mode `command`: the program and its arguments.
    pub summary_command: Vec<String>,
    /// Mode `command`: whether this machine's user trusts it (`project_trust`).
    pub command_trusted: Option<bool>,
}
