//! The three renderings of a memory (seed 000): `context` for prompts, `json` for programs,
//! `raw` for the markdown alone.

use std::fmt;
use std::str::FromStr;

use serde_json::{Value, json};

use super::frontmatter::format_timestamp;
use crate::{Error, Memory, Result};

/// How to render a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// A readable block for an AI's context: title, ID, Created … by, Context, Tags,
    /// Category, Related, a blank line, then the content.
    #[default]
    Context,
    /// One JSON object: `{"id", "title", "content", "metadata": {...}}`.
    Json,
    /// The markdown content only.
    Raw,
}

impl Format {
    /// The lower-case name: `context`, `json` or `raw`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Context => "context",
            Self::Json => "json",
            Self::Raw => "raw",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "context" => Ok(Self::Context),
            "json" => Ok(Self::Json),
            "raw" => Ok(Self::Raw),
            _ => Err(Error::validation(
                format!("unknown format {s:?}"),
                "use one of: context, json, raw",
            )),
        }
    }
}

impl Memory {
    /// Renders the memory in `format`.
    ///
    /// ```
    /// use memcore::{Collection, Format, Limits, NewMemory};
    ///
    /// let created = "2025-10-30T14:23:45Z".parse()?;
    /// let memory = NewMemory::new("Use Metal for GPU work.")
    ///     .title("GPU Acceleration Patterns")
    ///     .created_by("Claude")
    ///     .context("Research for arcaneum-183")
    ///     .tags(["gpu", "performance"])
    ///     .into_memory(&Collection::default(), &Limits::default(), created)?;
    /// assert_eq!(
    ///     memory.render(Format::Context),
    ///     "# GPU Acceleration Patterns\n\
    ///      ID: gpu-acceleration-patterns\n\
    ///      Created: 2025-10-30T14:23:45Z by Claude\n\
    ///      Context: Research for arcaneum-183\n\
    ///      Tags: gpu, performance\n\
    ///      \n\
    ///      Use Metal for GPU work."
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Context => self.to_context_string(),
            // A `Value` built from strings and numbers always serialises.
            Format::Json => serde_json::to_string_pretty(&self.to_json()).unwrap_or_default(),
            Format::Raw => self.content.clone(),
        }
    }

    fn to_context_string(&self) -> String {
        let mut lines = vec![
            format!("# {}", self.title),
            format!("ID: {}", self.id),
            format!(
                "Created: {} by {}",
                format_timestamp(&self.created_at),
                self.created_by.as_deref().unwrap_or("unknown")
            ),
        ];
        if let Some(context) = &self.context {
            lines.push(format!("Context: {context}"));
        }
        if !self.tags.is_empty() {
            lines.push(format!("Tags: {}", self.tags.join(", ")));
        }
        if let Some(category) = &self.category {
            lines.push(format!("Category: {category}"));
        }
        if !self.related_to.is_empty() {
            lines.push(format!("Related: {}", self.related_to.join(", ")));
        }
        lines.push(String::new());
        lines.push(self.content.clone());
        lines.join("\n")
    }

    /// The `json` rendering as a value: `id`, `title`, `content` and a `metadata` object with
    /// every other field (extra frontmatter keys under `metadata.extra`).
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "title": self.title,
            "content": self.content,
            "metadata": {
                "collection": self.collection,
                "created_at": format_timestamp(&self.created_at),
                "updated_at": format_timestamp(&self.updated_at),
                "created_by": self.created_by,
                "context": self.context,
                "tags": self.tags,
                "category": self.category,
                "related_to": self.related_to,
                "project": self.project,
                "priority": self.priority,
                "status": self.status,
                "type": self.kind,
                "summary": self.summary,
                "importance": self.importance,
                "version": self.version,
                "extra": self.metadata,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Collection, Limits, NewMemory};

    fn memory() -> Memory {
        NewMemory::new("body")
            .title("T")
            .category("research")
            .related_to(["a", "b"])
            .meta("k", 1)
            .into_memory(&Collection::default(), &Limits::default(), crate::memory::now())
            .unwrap()
    }

    #[test]
    fn context_layout_includes_category_and_related() {
        let text = memory().render(Format::Context);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# T");
        assert_eq!(lines[1], "ID: t");
        assert!(lines[2].starts_with("Created: ") && lines[2].ends_with(" by unknown"));
        assert_eq!(&lines[3..], ["Category: research", "Related: a, b", "", "body"]);
    }

    #[test]
    fn json_and_raw() {
        let m = memory();
        let v: Value = serde_json::from_str(&m.render(Format::Json)).unwrap();
        assert_eq!(v["id"], "t");
        assert_eq!(v["metadata"]["collection"], "memory");
        assert_eq!(v["metadata"]["status"], "active");
        assert_eq!(v["metadata"]["extra"]["k"], 1);
        assert_eq!(m.render(Format::Raw), "body");
        assert_eq!("raw".parse::<Format>().unwrap(), Format::Raw);
        assert!("xml".parse::<Format>().is_err());
    }
}
