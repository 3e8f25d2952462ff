//! [`ProjectManifest`]: seed 003's `project.json`, read and written whole, its unknown keys
//! kept.

use std::io::Read;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::session::registry::check_name;
use crate::{Config, Error, Result};

/// The largest manifest read, in bytes: a manifest is a page of settings.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;
/// The range of `hot_context_turns`.
pub(crate) const CONTEXT_TURNS: std::ops::RangeInclusive<usize> = 1..=10_000;
/// The range of the windows in days (a century at most).
pub(crate) const WINDOW_DAYS: std::ops::RangeInclusive<u32> = 1..=36_500;
/// The range of a summary command's timeout, in milliseconds.
const TIMEOUT_MS: std::ops::RangeInclusive<u64> = 100..=3_600_000;
/// A summary command's timeout when the manifest gives none.
pub const DEFAULT_COMMAND_TIMEOUT_MS: u64 = 30_000;

/// What to do to fix a manifest that does not read.
const MANIFEST_RECOVERY: &str = "fix project.json (JSON; the README's \"Projects\" section shows \
     every key), or move it away to open the store without it";

/// A project's manifest (seed 003's `project.json`, kept in the store directory): who the
/// project is, its default agents, and the policy its tiers and summaries follow. Every key
/// is optional; keys memcore does not know (`storage`, `speech`, ...) are kept as they are,
/// at every level, when memcore writes the manifest back.
///
/// ```
/// use memcore::project::{ProjectManifest, SummaryMode};
///
/// let manifest: ProjectManifest = serde_json::from_str(r#"{
///     "project_id": "knit-cast",
///     "retention": {"hot_context_turns": 12, "warm_window_days": 120},
///     "summary": {"mode": "none"},
///     "speech": {"default_style": "podcast"}
/// }"#)?;
/// manifest.validate()?;
/// assert_eq!(manifest.summary.mode, SummaryMode::None);
/// assert_eq!(serde_json::to_value(&manifest)?["speech"]["default_style"], "podcast");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ProjectManifest {
    /// The project's id (a slug: lower-case letters, digits, `.`, `_`, `-`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// Its name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// What it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The agents its sessions have unless told otherwise (agent ids).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_agents: Vec<String>,
    /// How long things stay in each tier.
    #[serde(default)]
    pub retention: Retention,
    /// How sessions and digests are summarised.
    #[serde(default)]
    pub summary: SummarySettings,
    /// Every other key, kept as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A manifest's `retention`: each key, when given, overrides the store's config.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Retention {
    /// Turns a live session keeps verbatim (`tiered.hot_context_turns`), 1 to 10,000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_context_turns: Option<usize>,
    /// Days a memory stays in the warm tier before compaction moves it to the cold one
    /// (`tiered.warm_window_days`), 1 to 36,500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_window_days: Option<u32>,
    /// Days unchanged after which the lifecycle archives a memory
    /// (`lifecycle.archive_after_days`), 1 to 36,500. The cold tier compresses what it
    /// receives at once, so this is the lifecycle's step, for every backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_after_days: Option<u32>,
    /// Every other key, kept as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A manifest's `summary`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SummarySettings {
    /// Which summariser writes the summaries memcore makes by itself.
    #[serde(default)]
    pub mode: SummaryMode,
    /// Mode `command`: the program and its arguments, run without a shell (a string is a
    /// program without arguments). A relative program path with a `/` is relative to the
    /// project directory, where the program runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandLine>,
    /// Mode `command`: how long the program may take, in milliseconds (default 30,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Every other key, kept as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl SummarySettings {
    /// The command's program and arguments (empty when none is set).
    pub fn argv(&self) -> &[String] {
        match &self.command {
            Some(CommandLine::Program(program)) => std::slice::from_ref(program),
            Some(CommandLine::Argv(argv)) => argv,
            None => &[],
        }
    }

    /// The command's timeout.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_COMMAND_TIMEOUT_MS))
    }
}

/// A command: a program alone, or a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CommandLine {
    /// A program without arguments.
    Program(String),
    /// The program, then its arguments.
    Argv(Vec<String>),
}

/// Which summariser writes the summaries memcore makes by itself: a live session's rolling
/// summary, an ended session's summary, compaction digests. A summariser set in code
/// (`set_summarizer`) comes first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SummaryMode {
    /// The built-in extractive summariser (deterministic, no model).
    #[default]
    Heuristic,
    /// A local program: reads the text on stdin, prints the summary on stdout. It runs only
    /// once trusted on this machine (`memcore project trust`), since a manifest may come
    /// from a cloned repository. Live sessions' rolling summaries stay heuristic (a program
    /// per turn would be slow).
    Command,
    /// No summaries: turns leaving a live session's window are dropped from its context
    /// (the transcript keeps them), an ended session's memory lists its action items, notes
    /// and sources only, and digests list their sources.
    None,
}

impl SummaryMode {
    /// Its name in the manifest.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Heuristic => "heuristic",
            Self::Command => "command",
            Self::None => "none",
        }
    }
}

impl ProjectManifest {
    /// Reads the manifest at `path`: `None` when there is none; a validation error naming
    /// the key for one that does not read or holds a value out of range.
    pub fn load(path: &Path) -> Result<Option<Self>> {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            // No manifest; a store path that is no directory is the store's to report.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        };
        // A collection named `project.json` is a directory of memories, not a manifest.
        if meta.is_dir() {
            return Ok(None);
        }
        // A cloned repository may carry a link to any file (a secret, /dev/zero).
        if !meta.is_file() {
            return Err(Error::validation(
                format!("{} is not a regular file (a symbolic link?)", path.display()),
                MANIFEST_RECOVERY,
            ));
        }
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_MANIFEST_BYTES + 1).read_to_string(&mut text))
            .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
        if text.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(Error::validation(
                format!("{} is over 1 MiB; a manifest is a page of settings", path.display()),
                MANIFEST_RECOVERY,
            ));
        }
        let deserializer = &mut serde_json::Deserializer::from_str(&text);
        let manifest: Self = serde_path_to_error::deserialize(deserializer).map_err(|e| {
            Error::validation(format!("{} does not read: {e}", path.display()), MANIFEST_RECOVERY)
        })?;
        manifest.validate().map_err(|e| match e {
            Error::Validation { message, recovery } => {
                Error::validation(format!("{}: {message}", path.display()), recovery)
            }
            other => other,
        })?;
        Ok(Some(manifest))
    }

    /// The manifest as the JSON memcore writes (pretty, with a final line break).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| unreachable!("a manifest is JSON: {e}"));
        text.push('\n');
        text
    }

    /// Checks every value: the project id and agents are slugs, the windows and timeout in
    /// range, and mode `command` has a program.
    pub fn validate(&self) -> Result<()> {
        if let Some(id) = &self.project_id {
            check_name("project id", id)?;
        }
        for agent in &self.default_agents {
            check_name("agent id", agent)?;
        }
        let retention = &self.retention;
        check_range("retention.hot_context_turns", retention.hot_context_turns, &CONTEXT_TURNS)?;
        check_range("retention.warm_window_days", retention.warm_window_days, &WINDOW_DAYS)?;
        check_range("retention.archive_after_days", retention.archive_after_days, &WINDOW_DAYS)?;
        let summary = &self.summary;
        check_range("summary.timeout_ms", summary.timeout_ms, &TIMEOUT_MS)?;
        let argv = summary.argv();
        if argv.first().is_some_and(|program| program.trim().is_empty())
            || argv.iter().any(|arg| arg.contains('\0'))
        {
            return Err(Error::validation(
                "summary.command has an empty program or a NUL byte",
                "give the program and its arguments, e.g. [\"./bin/summarize\", \"--short\"]",
            ));
        }
        if summary.mode == SummaryMode::Command && argv.is_empty() {
            return Err(Error::validation(
                "summary.mode is command but summary.command names no program",
                "set summary.command to the program and its arguments, e.g. \
                 [\"./bin/summarize\"], or set summary.mode to heuristic",
            ));
        }
        Ok(())
    }

    /// `config` with this manifest's retention in place of its own.
    pub fn apply(&self, config: &mut Config) {
        let retention = &self.retention;
        if let Some(turns) = retention.hot_context_turns {
            config.tiered.hot_context_turns = turns;
        }
        if let Some(days) = retention.warm_window_days {
            config.tiered.warm_window_days = days;
        }
        if let Some(days) = retention.archive_after_days {
            config.lifecycle.archive_after_days = f64::from(days);
        }
        if self.summary.mode == SummaryMode::None {
            config.tiered.rolling_summary = false;
        }
    }
}

/// A validation error naming `key` when `value` is given and out of `range`.
fn check_range<T>(key: &str, value: Option<T>, range: &std::ops::RangeInclusive<T>) -> Result<()>
where
    T: PartialOrd + std::fmt::Display + Copy,
{
    match value {
        Some(value) if !range.contains(&value) => Err(Error::validation(
            format!("{key} is {value}; it must be {} to {}", range.start(), range.end()),
            format!("set {key} within that range, or leave it out for the default"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_survive_at_every_level() {
        let text = r#"{"project_id":"knit-cast","storage":{"archive_format":"zip"},
            "retention":{"hot_context_turns":12,"keep_quotes":true},
            "summary":{"mode":"heuristic","command":null,"style":"brief"}}"#;
        let manifest: ProjectManifest = serde_json::from_str(text).unwrap();
        let back: Value = serde_json::from_str(&manifest.to_json()).unwrap();
        assert_eq!(back["storage"]["archive_format"], "zip");
        assert_eq!(back["retention"]["keep_quotes"], true);
        assert_eq!(back["summary"]["style"], "brief");
        assert_eq!(back["retention"]["hot_context_turns"], 12);
    }

    #[test]
    fn commands_are_a_program_or_an_argv() {
        let parse = |summary: &str| {
            serde_json::from_str::<ProjectManifest>(&format!(r#"{{"summary":{summary}}}"#))
        };
        let one = parse(r#"{"mode":"command","command":"summarize"}"#).unwrap();
        assert_eq!(one.summary.argv(), ["summarize"]);
        let many = parse(r#"{"mode":"command","command":["./sum","-n","3"]}"#).unwrap();
        assert_eq!(many.summary.argv(), ["./sum", "-n", "3"]);
        assert!(parse(r#"{"mode":"command"}"#).unwrap().validate().is_err());
        assert!(parse(r#"{"mode":"command","command":[""]}"#).unwrap().validate().is_err());
        assert!(parse(r#"{"mode":"frontier"}"#).is_err());
        assert!(parse(r#"{"timeout_ms":5}"#).unwrap().validate().is_err());
    }

    #[test]
    fn retention_overrides_the_config() {
        let manifest: ProjectManifest = serde_json::from_str(
            r#"{"retention":{"hot_context_turns":4,"warm_window_days":30,"archive_after_days":60},
                "summary":{"mode":"none"}}"#,
        )
        .unwrap();
        let mut config = Config::default();
        manifest.apply(&mut config);
        assert_eq!(config.tiered.hot_context_turns, 4);
        assert_eq!(config.tiered.warm_window_days, 30);
        assert_eq!(config.lifecycle.archive_after_days, 60.0);
        assert!(!config.tiered.rolling_summary);
        let bad: ProjectManifest =
            serde_json::from_str(r#"{"retention":{"warm_window_days":0}}"#).unwrap();
        assert!(bad.validate().is_err());
    }
}
