//! The JSON records of the C API: what callers send (put, update and list records) and
//! the helpers that turn results into JSON. The schemas are documented in the crate docs
//! (section "JSON records") and in `memcore.h`.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use memcore::{
    ListOptions, Listing, Memory, MemorySummary, MemoryUpdate, Metadata, NewMemory, Status,
    Timestamp,
};

use crate::boundary::{Failure, FfiResult};
use crate::status::memcore_status;

/// Parses a JSON argument, which must be an object; anything else, or an object that does
/// not fit the schema, is `INVALID_JSON`, naming the offending field (and, for syntax
/// errors, the line and column).
pub(crate) fn parse<T: DeserializeOwned>(param: &str, text: &str, schema: &str) -> FfiResult<T> {
    let invalid = |problem: String| {
        Failure::new(
            memcore_status::InvalidJson,
            format!("`{param}` is not a valid {schema}: {problem}"),
            format!("pass a JSON object following the {schema} schema in memcore.h"),
        )
    };
    let value: Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    if !value.is_object() {
        let found = match value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        };
        return Err(invalid(format!("expected a JSON object, found {found}")));
    }
    T::deserialize(value).map_err(|e| invalid(e.to_string()))
}

/// Serialises a result; failure here is a bug (`INTERNAL`).
pub(crate) fn to_string<T: Serialize + ?Sized>(value: &T) -> FfiResult<String> {
    serde_json::to_string(value).map_err(|e| {
        Failure::new(
            memcore_status::Internal,
            format!("could not serialise a result as JSON: {e}"),
            "this is a bug in memcore, please report it with this message",
        )
    })
}

/// A memory record or summary with its reference (`"collection/id"`) in front, ready to
/// pass back to `memcore_get()` and friends.
#[derive(Serialize)]
struct WithRef<'a, T> {
    #[serde(rename = "ref")]
    reference: String,
    #[serde(flatten)]
    record: &'a T,
}

/// The memory record: `{"ref", "id", "collection", ...}`.
pub(crate) fn memory(memory: &Memory) -> FfiResult<String> {
    to_string(&WithRef {
        reference: format!("{}/{}", memory.collection, memory.id),
        record: memory,
    })
}

/// The list result: `{"memories": [summary...], "skipped": [error...]}`.
pub(crate) fn listing(listing: &Listing) -> FfiResult<String> {
    #[derive(Serialize)]
    struct ListResult<'a> {
        memories: Vec<WithRef<'a, MemorySummary>>,
        skipped: Vec<ErrorRecord<'a>>,
    }
    to_string(&ListResult {
        memories: listing
            .memories
            .iter()
            .map(|summary| WithRef {
                reference: format!("{}/{}", summary.collection, summary.id),
                record: summary,
            })
            .collect(),
        skipped: listing.skipped.iter().map(ErrorRecord::of).collect(),
    })
}

/// The error record: `{"status", "code", "message", "recovery"}`.
#[derive(Serialize)]
struct ErrorRecord<'a> {
    status: &'static str,
    code: u32,
    message: String,
    recovery: &'a str,
}

impl<'a> ErrorRecord<'a> {
    fn of(err: &'a memcore::Error) -> Self {
        let status = memcore_status::of_error(err);
        Self {
            status: status.name(),
            code: status as u32,
            message: err.to_string(),
            recovery: err.recovery(),
        }
    }
}

fn parse_status(status: Option<String>) -> memcore::Result<Option<Status>> {
    status.map(|s| s.parse()).transpose()
}

fn parse_time(field: &str, time: Option<String>) -> memcore::Result<Option<Timestamp>> {
    time.map(|text| {
        text.parse::<Timestamp>().map_err(|e| {
            memcore::Error::validation(
                format!("`{field}` {text:?} is not an RFC 3339 time: {e}"),
                "give a time such as 2025-10-30T14:23:45Z",
            )
        })
    })
    .transpose()
}

/// The `put record`: a new memory with any of its metadata.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PutRecord {
    content: String,
    id: Option<String>,
    collection: Option<String>,
    title: Option<String>,
    summary: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    status: Option<String>,
    tags: Option<Vec<String>>,
    category: Option<String>,
    context: Option<String>,
    related_to: Option<Vec<String>>,
    project: Option<String>,
    priority: Option<String>,
    created_by: Option<String>,
    importance: Option<f64>,
    created_at: Option<String>,
    metadata: Option<Metadata>,
}

impl PutRecord {
    /// The core's description of the new memory; a bad status or time is `INVALID_ARGUMENT`.
    pub(crate) fn into_new_memory(self) -> memcore::Result<NewMemory> {
        let mut new = NewMemory::new(self.content);
        new.id = self.id;
        new.collection = self.collection;
        new.title = self.title;
        new.summary = self.summary;
        new.kind = self.kind;
        new.status = parse_status(self.status)?;
        new.tags = self.tags.unwrap_or_default();
        new.category = self.category;
        new.context = self.context;
        new.related_to = self.related_to.unwrap_or_default();
        new.project = self.project;
        new.priority = self.priority;
        new.created_by = self.created_by;
        new.importance = self.importance;
        new.created_at = parse_time("created_at", self.created_at)?;
        new.metadata = self.metadata.unwrap_or_default();
        Ok(new)
    }
}

/// The `update record`: the fields to change; absent (or null) fields keep their value.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateRecord {
    content: Option<String>,
    title: Option<String>,
    summary: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    status: Option<String>,
    tags: Option<Vec<String>>,
    merge_tags: Option<bool>,
    category: Option<String>,
    context: Option<String>,
    related_to: Option<Vec<String>>,
    project: Option<String>,
    priority: Option<String>,
    importance: Option<f64>,
    metadata: Option<Metadata>,
}

impl UpdateRecord {
    /// The core's description of the change; a bad status is `INVALID_ARGUMENT`.
    pub(crate) fn into_update(self) -> memcore::Result<MemoryUpdate> {
        let mut change = MemoryUpdate::new();
        change.content = self.content;
        change.title = self.title;
        change.summary = self.summary;
        change.kind = self.kind;
        change.status = parse_status(self.status)?;
        change.tags = self.tags;
        change.merge_tags = self.merge_tags.unwrap_or(false);
        change.category = self.category;
        change.context = self.context;
        change.related_to = self.related_to;
        change.project = self.project;
        change.priority = self.priority;
        change.importance = self.importance;
        change.metadata = self.metadata.unwrap_or_default();
        Ok(change)
    }
}

/// The `list options` record: which memories `memcore_list()` returns.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListRecord {
    collection: Option<String>,
    filters: Option<Vec<String>>,
    offset: Option<usize>,
    limit: Option<usize>,
}

impl ListRecord {
    /// The core's list options; a bad filter is `INVALID_ARGUMENT`.
    pub(crate) fn into_options(self) -> memcore::Result<ListOptions> {
        let mut options = ListOptions::new();
        if let Some(collection) = self.collection {
            options = options.collection(collection);
        }
        for filter in self.filters.unwrap_or_default() {
            options = options.filter(&filter)?;
        }
        if let Some(offset) = self.offset {
            options = options.offset(offset);
        }
        if let Some(limit) = self.limit {
            options = options.limit(limit);
        }
        Ok(options)
    }

    /// Whether the caller asked for no memories at all (`"limit": 0`).
    pub(crate) fn wants_nothing(&self) -> bool {
        self.limit == Some(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_reject_unknown_fields_and_wrong_types() {
        let err = parse::<PutRecord>("record", r#"{"content": "x", "tag": []}"#, "put record")
            .unwrap_err();
        assert_eq!(err.status, memcore_status::InvalidJson);
        assert!(err.message.contains("unknown field `tag`"), "{}", err.message);
        let err = parse::<PutRecord>("record", r#"{"title": "x"}"#, "put record").unwrap_err();
        assert!(err.message.contains("missing field `content`"), "{}", err.message);
        let err = parse::<UpdateRecord>("change", r#"{"tags": "a"}"#, "update record");
        assert_eq!(err.unwrap_err().status, memcore_status::InvalidJson);
        assert!(parse::<ListRecord>("options", "[", "list options").is_err());
        let err = parse::<ListRecord>("options", r#"["c", null, 0, 1]"#, "list options");
        assert!(err.unwrap_err().message.contains("expected a JSON object, found an array"));
    }

    #[test]
    fn put_record_maps_every_field() {
        let record: PutRecord = parse(
            "record",
            r#"{"content": "c", "id": "i", "collection": "k", "title": "t", "summary": "s",
                "type": "fact", "status": "resolved", "tags": ["a"], "category": "g",
                "context": "x", "related_to": ["r"], "project": "p", "priority": "high",
                "created_by": "me", "importance": 0.5, "created_at": "2025-10-30T14:23:45Z",
                "metadata": {"k": 1}}"#,
            "put record",
        )
        .unwrap();
        let new = record.into_new_memory().unwrap();
        assert_eq!(new.status, Some(Status::Resolved));
        assert_eq!(new.kind.as_deref(), Some("fact"));
        assert_eq!(
            new.created_at.map(|t| t.to_rfc3339()).as_deref(),
            Some("2025-10-30T14:23:45+00:00")
        );
        assert_eq!(new.metadata["k"], 1);

        let bad: PutRecord = parse("r", r#"{"content": "c", "status": "done"}"#, "p").unwrap();
        assert!(bad.into_new_memory().is_err());
        let bad: PutRecord =
            parse("r", r#"{"content": "c", "created_at": "monday"}"#, "p").unwrap();
        assert!(bad.into_new_memory().is_err());
    }
}
