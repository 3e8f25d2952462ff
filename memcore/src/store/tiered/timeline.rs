//! [`Timeline`]: `timeline.jsonl`, the append-only index of a store's sessions and major
//! events (seed 003): one JSON line each, with the fields of the seed's example (`session_id`,
//! `title`, `agents`, `duration`, `topics`, `consensus`) and when it happened.
//!
//! Appends hold a lock and are durable line by line; an append cut short by a crash leaves a
//! torn last line, which readers skip and the next append removes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::jsonl;
use crate::session::registry::check_name;
use crate::store::lock::StoreLock;
use crate::{Error, Result, Timestamp};

/// What a timeline entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimelineKind {
    /// A session that ended.
    Session,
    /// Another major event (a decision, a release, a compaction).
    Event,
}

/// One line of the timeline.
///
/// ```
/// use memcore::{TimelineEntry, now};
/// let entry = TimelineEntry::session("2025-10-16-lace", "Episode 47 - The Lace Disaster", now())
///     .agents(["patch", "loom"])
///     .topics(["lace", "suppliers"])
///     .consensus("Delay launch by two weeks");
/// assert_eq!(entry.agents, ["patch", "loom"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct TimelineEntry {
    /// When it happened (a session's end).
    pub at: Timestamp,
    /// What it records.
    pub kind: TimelineKind,
    /// The session, for a session entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// A title.
    pub title: String,
    /// The agents who took part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// How long it lasted, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<u64>,
    /// What it was about.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
    /// What was agreed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consensus: Option<String>,
}

impl TimelineEntry {
    /// The entry of the session `session_id`, titled `title`, that ended `at`.
    pub fn session(session_id: impl Into<String>, title: impl Into<String>, at: Timestamp) -> Self {
        Self {
            kind: TimelineKind::Session,
            session_id: Some(session_id.into()),
            ..Self::event(title, at)
        }
    }

    /// An event titled `title` that happened `at`.
    pub fn event(title: impl Into<String>, at: Timestamp) -> Self {
        Self {
            at,
            kind: TimelineKind::Event,
            session_id: None,
            title: title.into(),
            agents: Vec::new(),
            duration: None,
            topics: Vec::new(),
            consensus: None,
        }
    }

    /// Sets the agents.
    pub fn agents<I: IntoIterator<Item = S>, S: Into<String>>(mut self, agents: I) -> Self {
        self.agents = agents.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the topics.
    pub fn topics<I: IntoIterator<Item = S>, S: Into<String>>(mut self, topics: I) -> Self {
        self.topics = topics.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the duration, in seconds.
    pub fn duration(mut self, seconds: u64) -> Self {
        self.duration = Some(seconds);
        self
    }

    /// Sets what was agreed.
    pub fn consensus(mut self, consensus: impl Into<String>) -> Self {
        self.consensus = Some(consensus.into());
        self
    }

    fn validate(&self) -> Result<()> {
        if let Some(session) = &self.session_id {
            check_name("session id", session)?;
        }
        if self.title.trim().is_empty() {
            return Err(Error::validation(
                "a timeline entry needs a title",
                "give the session's or event's title",
            ));
        }
        Ok(())
    }
}

/// Which timeline entries to list; `None` means "any".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct TimelineFilter {
    /// Only entries this agent took part in.
    pub agent: Option<String>,
    /// Only entries at or after this time.
    pub since: Option<Timestamp>,
    /// Only entries before this time.
    pub until: Option<Timestamp>,
}

impl TimelineFilter {
    fn admits(&self, entry: &TimelineEntry) -> bool {
        self.agent.as_ref().is_none_or(|agent| entry.agents.contains(agent))
            && self.since.is_none_or(|since| entry.at >= since)
            && self.until.is_none_or(|until| entry.at < until)
    }
}

/// A store's timeline file.
#[derive(Debug)]
pub struct Timeline {
    path: PathBuf,
    lock: StoreLock,
}

impl Timeline {
    /// The timeline at `path` (created by the first append); writers wait up to
    /// `lock_timeout` for each other.
    pub fn open(path: impl AsRef<Path>, lock_timeout: Duration) -> Self {
        let path = path.as_ref().to_path_buf();
        let lock = StoreLock::new(&path.with_extension("lock"), lock_timeout);
        Self { path, lock }
    }

    /// Appends `entry`, durably (after cutting a torn last line a crash left).
    pub fn append(&self, entry: &TimelineEntry) -> Result<()> {
        entry.validate()?;
        let _guard = self.lock.acquire()?;
        jsonl::append(&self.path, entry, "timeline entry")
    }

    /// Appends `entry` unless the timeline holds one `is_same` admits, checked under the
    /// writers' lock (two processes ending one session write it once); returns the entry
    /// the timeline holds.
    pub fn append_once(
        &self,
        entry: TimelineEntry,
        is_same: impl Fn(&TimelineEntry) -> bool,
    ) -> Result<TimelineEntry> {
        entry.validate()?;
        let _guard = self.lock.acquire()?;
        let (entries, _) = jsonl::read::<TimelineEntry>(&self.path)?;
        if let Some(existing) = entries.into_iter().find(|e| is_same(e)) {
            return Ok(existing);
        }
        jsonl::append(&self.path, &entry, "timeline entry")?;
        Ok(entry)
    }

    /// Removes the entries of session `session_id` (purge), rewriting the file atomically
    /// under the writers' lock; returns how many went. Unreadable lines are kept.
    pub fn remove_session(&self, session_id: &str) -> Result<usize> {
        let _guard = self.lock.acquire()?;
        let text = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(Error::io(format!("reading {}", self.path.display()), e)),
        };
        let mut kept = Vec::with_capacity(text.len());
        let mut removed = 0;
        for line in text.split_inclusive(|&b| b == b'\n') {
            let theirs = serde_json::from_slice::<TimelineEntry>(line.trim_ascii_end())
                .is_ok_and(|entry| entry.session_id.as_deref() == Some(session_id));
            if theirs {
                removed += 1;
            } else {
                kept.extend_from_slice(line);
            }
        }
        if removed > 0 {
            crate::store::fsutil::write_atomic(&self.path, &kept)?;
        }
        Ok(removed)
    }

    /// The entries `filter` admits, oldest first, and how many lines could not be read
    /// (a torn last line, or a line edited by hand).
    pub fn entries(&self, filter: &TimelineFilter) -> Result<(Vec<TimelineEntry>, usize)> {
        let (entries, unreadable) = jsonl::read::<TimelineEntry>(&self.path)?;
        Ok((entries.into_iter().filter(|entry| filter.admits(entry)).collect(), unreadable))
    }
}
