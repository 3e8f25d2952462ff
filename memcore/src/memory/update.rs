//! [`MemoryUpdate`]: a change to an existing memory, applied as a pure function.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Limits, Memory, Metadata, Status, Timestamp, clean_list, non_blank, option_setters};
use crate::{Error, Result};

/// A change to an existing memory. Fields left unset keep their value.
///
/// Tags are replaced, or merged with [`MemoryUpdate::merge_tags`]; metadata keys are merged
/// (a JSON `null` removes a key). Applying an update bumps `version` and sets `updated_at`.
/// Its serde form is the change every binding sends (`type` for [`MemoryUpdate::kind`]);
/// every field is optional.
///
/// ```
/// use memcore::MemoryUpdate;
///
/// let change = MemoryUpdate::new()
///     .content("# GPU Patterns\n\nMetal and CUDA ...")
///     .tags(["cuda"])
///     .merge_tags(true);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct MemoryUpdate {
    /// New markdown body.
    pub content: Option<String>,
    /// New title.
    pub title: Option<String>,
    /// New summary.
    pub summary: Option<String>,
    /// New type.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// New status; must be an allowed transition.
    pub status: Option<Status>,
    /// New tags (replacing, or merged when `merge_tags`).
    pub tags: Option<Vec<String>>,
    /// Merge `tags` into the existing tags instead of replacing them.
    pub merge_tags: bool,
    /// New category.
    pub category: Option<String>,
    /// New context.
    pub context: Option<String>,
    /// New related references (replacing).
    pub related_to: Option<Vec<String>>,
    /// New project.
    pub project: Option<String>,
    /// New priority label.
    pub priority: Option<String>,
    /// New importance, 0.0 to 1.0.
    pub importance: Option<f64>,
    /// Extra keys merged into the metadata; a `null` value removes the key.
    pub metadata: Metadata,
    /// Apply only if the memory is still at this version, else a conflict (optimistic
    /// concurrency: read, decide, write back without losing another writer's change).
    pub expected_version: Option<u64>,
}

impl MemoryUpdate {
    /// An update that changes nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    option_setters! {
        /// Replaces the content.
        content: String,
        /// Replaces the title.
        title: String,
        /// Replaces the summary.
        summary: String,
        /// Replaces the type.
        kind: String,
        /// Moves to another status.
        status: Status,
        /// Replaces the category.
        category: String,
        /// Replaces the context.
        context: String,
        /// Replaces the project.
        project: String,
        /// Replaces the priority label.
        priority: String,
        /// Replaces the importance.
        importance: f64,
    }

    /// Applies only to this version of the memory: a conflict if it has moved on.
    pub fn expected_version(mut self, version: u64) -> Self {
        self.expected_version = Some(version);
        self
    }

    /// Replaces (or, with [`merge_tags`](Self::merge_tags), extends) the tags.
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = Some(tags.into_iter().map(Into::into).collect());
        self
    }

    /// Merge the given tags into the existing ones instead of replacing them.
    pub fn merge_tags(mut self, merge: bool) -> Self {
        self.merge_tags = merge;
        self
    }

    /// Replaces the related references.
    pub fn related_to<I, S>(mut self, related: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.related_to = Some(related.into_iter().map(Into::into).collect());
        self
    }

    /// Sets (or, with `null`, removes) one extra metadata key.
    pub fn meta(mut self, key: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }

    /// The memory after this update, validated: `version + 1`, `updated_at = now`.
    /// `memory` itself is not changed, so a failed update leaves nothing half-applied.
    pub fn apply(&self, memory: &Memory, limits: &Limits, now: Timestamp) -> Result<Memory> {
        if let Some(expected) = self.expected_version
            && expected != memory.version
        {
            return Err(Error::conflict(
                format!(
                    "memory {} is at version {}, not {expected}: it changed meanwhile",
                    memory.reference(),
                    memory.version
                ),
                "read it again and apply your change to the current version",
            ));
        }
        let mut next = memory.clone();
        if let Some(content) = &self.content {
            limits.check_content(content)?;
            next.content.clone_from(content);
        }
        if let Some(summary) = &self.summary {
            limits.check_summary(summary)?;
        }
        Limits::check_metadata(&self.metadata)?;
        if let Some(importance) = self.importance {
            Limits::check_importance(importance)?;
            next.importance = Some(importance);
        }
        if let Some(status) = self.status {
            memory.status.check_transition(status)?;
            next.status = status;
        }
        if let Some(title) = non_blank(self.title.clone()) {
            next.title = title;
        }
        replace_if_set(&mut next.summary, &self.summary);
        replace_if_set(&mut next.kind, &self.kind);
        replace_if_set(&mut next.category, &self.category);
        replace_if_set(&mut next.context, &self.context);
        replace_if_set(&mut next.project, &self.project);
        replace_if_set(&mut next.priority, &self.priority);
        if let Some(tags) = &self.tags {
            let base = if self.merge_tags { memory.tags.clone() } else { Vec::new() };
            next.tags = clean_list(base.into_iter().chain(tags.iter().cloned()));
        }
        if let Some(related) = &self.related_to {
            next.related_to = clean_list(related.iter().cloned());
        }
        for (key, value) in &self.metadata {
            if value.is_null() {
                next.metadata.remove(key);
            } else {
                next.metadata.insert(key.clone(), value.clone());
            }
        }
        next.version = memory.version + 1;
        next.updated_at = now.max(memory.updated_at);
        Ok(next)
    }
}

/// A set-but-blank string clears the field; an unset one keeps it.
fn replace_if_set(field: &mut Option<String>, value: &Option<String>) {
    if value.is_some() {
        *field = non_blank(value.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{Collection, NewMemory, now};

    fn memory() -> Memory {
        NewMemory::new("# Title\nbody")
            .tags(["a", "b"])
            .category("cat")
            .meta("keep", 1)
            .meta("drop", 2)
            .into_memory(&Collection::default(), &Limits::default(), now())
            .unwrap()
    }

    #[test]
    fn merges_and_replaces() {
        let before = memory();
        let later = before.updated_at + chrono::Duration::seconds(5);
        let change = MemoryUpdate::new()
            .tags(["b", "c"])
            .merge_tags(true)
            .category("")
            .meta("drop", serde_json::Value::Null)
            .meta("new", "x");
        let after = change.apply(&before, &Limits::default(), later).unwrap();
        assert_eq!(after.tags, ["a", "b", "c"]);
        assert_eq!(after.category, None);
        assert_eq!(after.metadata.keys().collect::<Vec<_>>(), ["keep", "new"]);
        assert_eq!(after.version, 2);
        assert_eq!(after.updated_at, later);
        assert_eq!(after.created_at, before.created_at);
        assert_eq!(after.content, before.content);

        let replaced = MemoryUpdate::new().tags(["z"]).apply(&before, &Limits::default(), later);
        assert_eq!(replaced.unwrap().tags, ["z"]);
    }

    #[test]
    fn invalid_changes_are_rejected() {
        let before = memory();
        let limits = Limits::default();
        assert!(MemoryUpdate::new().content(" ").apply(&before, &limits, now()).is_err());
        assert!(MemoryUpdate::new().meta("tags", "x").apply(&before, &limits, now()).is_err());
        let resolved = MemoryUpdate::new().status(Status::Resolved).apply(&before, &limits, now());
        let resolved = resolved.unwrap();
        let back = MemoryUpdate::new().status(Status::Active).apply(&resolved, &limits, now());
        assert!(back.is_err());
    }
}
