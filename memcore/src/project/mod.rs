//! Project workspaces (seed 003's "Project Workspace Model"): a store may carry a manifest,
//! `project.json` in the store directory, naming the project, its default agents and the
//! policy its tiers and summaries follow.
//!
//! ```json
//! {
//!   "project_id": "knit-cast",
//!   "display_name": "The AI Knitting Circle",
//!   "default_agents": ["patch", "loom"],
//!   "retention": {"hot_context_turns": 12, "warm_window_days": 120, "archive_after_days": 365},
//!   "summary": {"mode": "command", "command": ["./bin/summarize", "--short"], "timeout_ms": 30000},
//!   "speech": {"default_style": "podcast"}
//! }
//! ```
//!
//! - **Retention** overrides the store's config when the store opens (a store handed to
//!   [`crate::MemcoreBuilder::store`] was opened with its own settings: the lifecycle
//!   follows the manifest, the store's tiers do not): `hot_context_turns`
//!   and `warm_window_days` are the tiered store's (`tiered:`), `archive_after_days` the
//!   lifecycle's (`lifecycle:`).
//! - **Summary** picks the summariser of the summaries memcore makes by itself
//!   ([`SummaryMode`]): `heuristic` (the extractive one), `command` (a local program, run
//!   without a shell under a deadline, once trusted: [`TrustedCommands`]) or `none`.
//! - Keys memcore does not know (`storage`, `speech`, ...) are kept when it writes the
//!   manifest back.
//!
//! The operations are [`crate::Memcore::project_init`], [`crate::Memcore::project_info`]
//! and [`crate::Memcore::project_trust`].

mod command;
pub(crate) mod manifest;
mod requests;
mod trust;

pub use command::CommandSummarizer;
pub use manifest::{
    CommandLine, DEFAULT_COMMAND_TIMEOUT_MS, ProjectManifest, Retention, SummaryMode,
    SummarySettings,
};
pub use requests::{ProjectInfo, ProjectInitRequest, ProjectPolicy};
pub use trust::{TRUSTED_COMMANDS_FILE, TrustedCommands};

use std::path::{Path, PathBuf};

use crate::config::{Location, PROJECT_CONFIG_NAMES};

/// The manifest's file name, in the store directory.
pub const MANIFEST_FILE: &str = "project.json";

/// Where the manifest of the store at `root` is.
pub fn manifest_path(root: &Path) -> PathBuf {
    root.join(MANIFEST_FILE)
}

/// The project directory of a store: the directory of its project config
/// (`.memcore.yaml`), else the directory holding the store (`.` for a store opened by a
/// relative name); not resolved.
pub(crate) fn project_dir(location: &Location) -> PathBuf {
    let project_config = location.config_file.as_deref().filter(|file| {
        file.file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| PROJECT_CONFIG_NAMES.contains(&name))
    });
    let parent = match project_config {
        Some(file) => file.parent(),
        None => location.root.parent(),
    };
    match parent {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        Some(_) => PathBuf::from("."),
        None => location.root.clone(),
    }
}
