//! Seed 000's metadata filters: `key=value` or `key=value1,value2`.
//!
//! A filter matches when the memory has the key and its value is one of the given values;
//! for a list field (`tags`, `related_to`, a list in the extra metadata) when any element is.
//! Known fields are those of [`crate::FIELD_NAMES`] (dates compare as written in the file,
//! e.g. `created_at=2025-10-30T14:23:45Z`); any other key is looked up in the extra
//! frontmatter metadata.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::format::frontmatter::format_timestamp;
use crate::{Error, Memory, Result};

/// One `key=value[,value...]` condition.
///
/// ```
/// use memcore::Filter;
///
/// let filter: Filter = "tags=api,auth".parse()?;
/// assert_eq!(filter.key(), "tags");
/// assert_eq!(filter.values(), ["api", "auth"]);
/// # Ok::<(), memcore::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    key: String,
    values: Vec<String>,
}

impl Filter {
    /// A filter on `key` accepting any of `values`.
    pub fn new<I, S>(key: impl Into<String>, values: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let key = key.into().trim().to_owned();
        let values: Vec<String> = values.into_iter().map(|v| v.into().trim().to_owned()).collect();
        if key.is_empty() || values.is_empty() {
            return Err(Error::validation(
                format!("invalid filter: key {key:?} with values {values:?}"),
                "write filters as key=value or key=value1,value2, e.g. tags=api,auth",
            ));
        }
        Ok(Self { key, values })
    }

    /// The field the filter tests.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The accepted values.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// Whether the key names a built-in field (rather than an extra frontmatter key).
    pub fn is_builtin_key(&self) -> bool {
        crate::memory::FIELD_NAMES.contains(&self.key.as_str())
    }

    /// Whether `memory` passes the filter.
    pub fn matches(&self, memory: &Memory) -> bool {
        let accepts = |candidate: &str| self.values.iter().any(|v| v == candidate);
        let one = |value: Option<&str>| value.is_some_and(accepts);
        let any = |items: &[String]| items.iter().any(|item| accepts(item));
        match self.key.as_str() {
            "id" => accepts(memory.id.as_str()),
            "collection" => accepts(memory.collection.as_str()),
            "title" => accepts(&memory.title),
            "summary" => one(memory.summary.as_deref()),
            "type" => one(memory.kind.as_deref()),
            "status" => accepts(memory.status.as_str()),
            "tags" => any(&memory.tags),
            "category" => one(memory.category.as_deref()),
            "context" => one(memory.context.as_deref()),
            "related_to" => any(&memory.related_to),
            "project" => one(memory.project.as_deref()),
            "priority" => one(memory.priority.as_deref()),
            "created_by" => one(memory.created_by.as_deref()),
            "version" => accepts(&memory.version.to_string()),
            "importance" => memory.importance.is_some_and(|i| accepts(&i.to_string())),
            "created_at" => accepts(&format_timestamp(&memory.created_at)),
            "updated_at" => accepts(&format_timestamp(&memory.updated_at)),
            other => memory.metadata.get(other).is_some_and(|value| match value {
                Value::Array(items) => items.iter().any(|item| accepts(&scalar_text(item))),
                value => accepts(&scalar_text(value)),
            }),
        }
    }
}

/// A JSON scalar as the text a person would type: strings without quotes.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl FromStr for Filter {
    type Err = Error;

    fn from_str(expr: &str) -> Result<Self> {
        let (key, values) = expr.split_once('=').ok_or_else(|| {
            Error::validation(
                format!("invalid filter {expr:?}: no '='"),
                "write filters as key=value or key=value1,value2, e.g. tags=api,auth",
            )
        })?;
        Self::new(key, values.split(','))
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.values.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Collection, Limits, NewMemory};

    fn memory() -> Memory {
        NewMemory::new("x")
            .tags(["api", "gpu"])
            .priority("high")
            .meta("team", "core")
            .meta("labels", serde_json::json!(["a", 2]))
            .meta("flag", true)
            .into_memory(&Collection::default(), &Limits::default(), crate::now())
            .unwrap()
    }

    #[test]
    fn matches_fields_lists_and_metadata() {
        let m = memory();
        let check = |expr: &str| expr.parse::<Filter>().unwrap().matches(&m);
        assert!(check("tags=auth,api"));
        assert!(!check("tags=auth"));
        assert!(check("priority=high"));
        assert!(check("status=active"));
        assert!(check("team=core"));
        assert!(check("labels=2"));
        assert!(check("flag=true"));
        assert!(check("version=1"));
        assert!(check(&format!("created_at={}", format_timestamp(&m.created_at))));
        assert!(!check("category=x"));
        assert!(!check("unknown=x"));
    }

    #[test]
    fn rejects_malformed() {
        assert!("tags".parse::<Filter>().is_err());
        assert!("=x".parse::<Filter>().is_err());
        assert_eq!("tags = a, b".parse::<Filter>().unwrap().to_string(), "tags=a,b");
    }
}
