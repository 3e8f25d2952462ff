//! Memory files: YAML frontmatter between `---` lines, then the markdown body.
//!
//! ```text
//! ---
//! id: gpu-patterns
//! title: GPU Acceleration Patterns
//! collection: knowledge
//! status: active
//! tags: [gpu, performance]
//! created_at: 2025-10-30T14:23:45Z
//! updated_at: 2025-10-30T14:23:45Z
//! version: 1
//! my_own_key: kept as is
//! ---
//! # GPU Acceleration Patterns
//! ...
//! ```
//!
//! Keys memcore knows are typed; any other key is kept in [`Memory::metadata`] and written
//! back unchanged in meaning. All YAML goes through this module, so swapping the YAML crate
//! touches one file.

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
use serde_yaml::{Mapping, Value};

use crate::memory::{Collection, Memory, MemoryId, Metadata, NewMemory, Status, Timestamp};
use crate::{Error, Result};

/// The parts of a memory file.
struct Document<'a> {
    /// The YAML between the `---` lines, if the file has frontmatter.
    yaml: Option<&'a str>,
    /// The markdown after the closing `---` line (or the whole file).
    body: &'a str,
}

/// A parse failure, located in the file: 1-based line and message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParseError {
    /// The 1-based line of the problem, when known.
    pub(crate) line: Option<usize>,
    /// What is wrong.
    pub(crate) message: String,
}

impl ParseError {
    pub(crate) fn at(line: Option<usize>, message: impl Into<String>) -> Self {
        Self { line, message: message.into() }
    }

    /// The [`Error::Corrupted`] for this failure in the file at `path`.
    pub(crate) fn into_error(self, path: &std::path::Path) -> Error {
        Error::corrupted(
            path,
            self.line,
            self.message,
            "fix the frontmatter by hand (it is YAML between two '---' lines at the top of the \
             file), or restore the memory from its version history",
        )
    }
}

pub(crate) type ParseResult<T> = std::result::Result<T, ParseError>;

/// The frontmatter starts on line 2 of the file (line 1 is `---`).
const YAML_FIRST_LINE: usize = 2;

/// Splits a file into its frontmatter YAML (if it opens with `---`) and its body. A UTF-8 byte
/// order mark before the `---` (some Windows editors write one) is not content: it is dropped.
fn split(text: &str) -> ParseResult<Document<'_>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else {
        return Ok(Document { yaml: None, body: text });
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Ok(Document { yaml: Some(yaml), body });
        }
        offset += line.len();
    }
    Err(ParseError::at(Some(1), "the frontmatter opened with '---' on line 1 is never closed"))
}

/// Typed values of the frontmatter keys memcore knows, plus the rest.
#[derive(Default)]
struct Fields {
    id: Option<String>,
    title: Option<String>,
    collection: Option<String>,
    summary: Option<String>,
    kind: Option<String>,
    status: Option<Status>,
    tags: Vec<String>,
    category: Option<String>,
    context: Option<String>,
    related_to: Vec<String>,
    project: Option<String>,
    priority: Option<String>,
    created_by: Option<String>,
    created_at: Option<Timestamp>,
    updated_at: Option<Timestamp>,
    importance: Option<f64>,
    version: Option<u64>,
    metadata: Metadata,
}

fn parse_fields(yaml: &str) -> ParseResult<Fields> {
    fields_of(parse_mapping(yaml, YAML_FIRST_LINE)?)
}

/// Parses frontmatter YAML into its mapping; `first_line` is the 1-based line of the YAML's
/// first line in its file, so that errors point at the right line.
pub(crate) fn parse_mapping(yaml: &str, first_line: usize) -> ParseResult<Mapping> {
    let root: Value = serde_yaml::from_str(yaml).map_err(|e| {
        let line = e.location().map(|l| l.line() + first_line - 1);
        ParseError::at(line.or(Some(first_line)), format!("invalid YAML frontmatter: {e}"))
    })?;
    match root {
        Value::Mapping(mapping) => Ok(mapping),
        Value::Null => Ok(Mapping::new()),
        _ => Err(ParseError::at(
            Some(first_line),
            "the frontmatter must be a YAML mapping of `key: value` lines",
        )),
    }
}

fn fields_of(mapping: Mapping) -> ParseResult<Fields> {
    let mut fields = Fields::default();
    for (key, value) in mapping {
        let Value::String(key) = key else {
            return Err(ParseError::at(None, format!("frontmatter key {key:?} is not text")));
        };
        let bad = |what: &str| {
            ParseError::at(None, format!("frontmatter key `{key}` must be {what}, found {value:?}"))
        };
        match key.as_str() {
            "id" => fields.id = text(&value).ok_or_else(|| bad("text"))?,
            "title" => fields.title = text(&value).ok_or_else(|| bad("text"))?,
            "collection" => fields.collection = text(&value).ok_or_else(|| bad("text"))?,
            "summary" => fields.summary = text(&value).ok_or_else(|| bad("text"))?,
            "type" => fields.kind = text(&value).ok_or_else(|| bad("text"))?,
            "category" => fields.category = text(&value).ok_or_else(|| bad("text"))?,
            "context" => fields.context = text(&value).ok_or_else(|| bad("text"))?,
            "project" => fields.project = text(&value).ok_or_else(|| bad("text"))?,
            "priority" => fields.priority = text(&value).ok_or_else(|| bad("text"))?,
            "created_by" => fields.created_by = text(&value).ok_or_else(|| bad("text"))?,
            "tags" => fields.tags = list(&value).ok_or_else(|| bad("a list of text"))?,
            "related_to" => {
                fields.related_to = list(&value).ok_or_else(|| bad("a list of text"))?
            }
            "status" => {
                fields.status = match text(&value).ok_or_else(|| bad("text"))? {
                    Some(name) => Some(
                        name.parse()
                            .map_err(|_| bad("one of active, resolved, archived, tombstone"))?,
                    ),
                    None => None,
                };
            }
            "created_at" => fields.created_at = timestamp(&value).ok_or_else(|| bad("a date"))?,
            "updated_at" => fields.updated_at = timestamp(&value).ok_or_else(|| bad("a date"))?,
            "importance" => {
                fields.importance = match value {
                    Value::Null => None,
                    _ => Some(
                        number(&value)
                            .filter(|n| (0.0..=1.0).contains(n))
                            .ok_or_else(|| bad("a number from 0.0 to 1.0"))?,
                    ),
                };
            }
            "version" => {
                fields.version = match value {
                    Value::Null => None,
                    _ => Some(value.as_u64().ok_or_else(|| bad("a whole number"))?),
                };
            }
            _ => {
                let json = serde_json::to_value(&value).map_err(|e| {
                    ParseError::at(None, format!("frontmatter key `{key}` cannot be kept: {e}"))
                })?;
                fields.metadata.insert(key, json);
            }
        }
    }
    Ok(fields)
}

/// A scalar as text: `Some(None)` for null, `None` for a non-scalar.
fn text(value: &Value) -> Option<Option<String>> {
    match value {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s.clone())),
        Value::Bool(b) => Some(Some(b.to_string())),
        Value::Number(n) => Some(Some(n.to_string())),
        _ => None,
    }
}

/// A list of scalars, or one comma-separated string.
fn list(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::Null => Some(Vec::new()),
        Value::String(s) => Some(s.split(',').map(|part| part.trim().to_owned()).collect()),
        Value::Sequence(items) => items.iter().map(|item| text(item).flatten()).collect(),
        _ => None,
    }
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// RFC 3339, or a naive date-time or date taken as UTC: `Some(None)` for null.
fn timestamp(value: &Value) -> Option<Option<Timestamp>> {
    let raw = match value {
        Value::Null => return Some(None),
        Value::String(s) => s.trim(),
        _ => return None,
    };
    parse_timestamp(raw).map(Some)
}

/// Parses a time as memory files may hold it: RFC 3339 (`2025-10-30T14:23:45Z`), a naive
/// date-time taken as UTC (`2025-10-30T14:23:45.123`, `2025-10-30 14:23:45`) or a date
/// (`2025-10-30`, midnight UTC).
///
/// ```
/// let t = memcore::parse_timestamp("2025-10-30").unwrap();
/// assert_eq!(t.to_rfc3339(), "2025-10-30T00:00:00+00:00");
/// assert!(memcore::parse_timestamp("yesterday").is_none());
/// ```
pub fn parse_timestamp(raw: &str) -> Option<Timestamp> {
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Some(t.with_timezone(&Utc));
    }
    for pattern in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(raw, pattern) {
            return Some(t.and_utc());
        }
    }
    let date = NaiveDate::parse_from_str(raw, "%Y-%m-%d").ok()?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc())
}

/// Formats a timestamp as stored: RFC 3339 in UTC with a `Z`.
pub(crate) fn format_timestamp(t: &Timestamp) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Reads a memory file. The file's location is the truth for `collection` and `id`
/// (a hand-moved file keeps working); `file_time` stands in for missing dates.
pub(crate) fn parse_memory(
    text: &str,
    collection: &Collection,
    id: &MemoryId,
    file_time: Timestamp,
) -> ParseResult<Memory> {
    let doc = split(text)?;
    let fields = match doc.yaml {
        Some(yaml) => parse_fields(yaml)?,
        None => Fields::default(),
    };
    Ok(memory_of(fields, doc.body, collection, id, file_time))
}

/// Reads a memory from frontmatter already parsed into `mapping` and its markdown `body`,
/// as [`parse_memory`] does.
pub(crate) fn memory_from_mapping(
    mapping: Mapping,
    body: &str,
    collection: &Collection,
    id: &MemoryId,
    default_time: Timestamp,
) -> ParseResult<Memory> {
    Ok(memory_of(fields_of(mapping)?, body, collection, id, default_time))
}

fn memory_of(
    fields: Fields,
    body: &str,
    collection: &Collection,
    id: &MemoryId,
    default_time: Timestamp,
) -> Memory {
    let created_at = fields.created_at.unwrap_or(default_time);
    Memory {
        id: id.clone(),
        collection: collection.clone(),
        // No title: the summary (a line someone wrote) before the content's first line.
        title: (fields.title.or_else(|| fields.summary.clone()))
            .unwrap_or_else(|| super::derive_title(body, id)),
        summary: fields.summary,
        kind: fields.kind,
        status: fields.status.unwrap_or_default(),
        tags: fields.tags,
        category: fields.category,
        context: fields.context,
        related_to: fields.related_to,
        project: fields.project,
        priority: fields.priority,
        created_by: fields.created_by,
        created_at,
        updated_at: fields.updated_at.unwrap_or(created_at),
        importance: fields.importance,
        version: fields.version.unwrap_or(1).max(1),
        metadata: fields.metadata,
        content: body.to_owned(),
    }
}

/// Reads a markdown document that may carry frontmatter (a file being imported) into a
/// [`NewMemory`]: the frontmatter supplies the metadata, the body the content.
pub(crate) fn parse_new_memory(text: &str) -> Result<NewMemory> {
    let to_error = |e: ParseError| {
        let at = e.line.map(|line| format!(" (line {line})")).unwrap_or_default();
        Error::validation(
            format!("{}{at}", e.message),
            "fix the frontmatter (YAML between two '---' lines at the top of the document)",
        )
    };
    let doc = split(text).map_err(to_error)?;
    let fields = match doc.yaml {
        Some(yaml) => parse_fields(yaml).map_err(to_error)?,
        None => Fields::default(),
    };
    Ok(NewMemory {
        content: doc.body.to_owned(),
        id: fields.id,
        collection: fields.collection,
        title: fields.title,
        summary: fields.summary,
        kind: fields.kind,
        status: fields.status,
        tags: fields.tags,
        category: fields.category,
        context: fields.context,
        related_to: fields.related_to,
        project: fields.project,
        priority: fields.priority,
        created_by: fields.created_by,
        importance: fields.importance,
        metadata: fields.metadata,
        created_at: fields.created_at,
        vector: None,
    })
}

/// Writes a memory as a file: frontmatter in a fixed key order, then the body verbatim.
pub(crate) fn to_markdown(memory: &Memory) -> String {
    format!("---\n{}---\n{}", yaml_text(&memory_mapping(memory)), memory.content)
}

/// YAML text of a frontmatter mapping, ending in a newline.
pub(crate) fn yaml_text(mapping: &Mapping) -> String {
    // Serialising a mapping of strings, numbers and sequences cannot fail.
    serde_yaml::to_string(mapping).unwrap_or_default()
}

/// The frontmatter of `memory` as a mapping, keys in the fixed order files use.
pub(crate) fn memory_mapping(memory: &Memory) -> Mapping {
    let mut map = Mapping::new();
    let mut put = |key: &str, value: Value| {
        map.insert(Value::String(key.to_owned()), value);
    };
    let string = |s: &str| Value::String(s.to_owned());
    let strings = |items: &[String]| Value::Sequence(items.iter().map(|s| string(s)).collect());
    put("id", string(memory.id.as_str()));
    put("title", string(&memory.title));
    put("collection", string(memory.collection.as_str()));
    let optional = [("summary", &memory.summary), ("type", &memory.kind)];
    for (key, value) in optional {
        if let Some(value) = value {
            put(key, string(value));
        }
    }
    put("status", string(memory.status.as_str()));
    if !memory.tags.is_empty() {
        put("tags", strings(&memory.tags));
    }
    let optional = [
        ("category", &memory.category),
        ("context", &memory.context),
        ("project", &memory.project),
        ("priority", &memory.priority),
        ("created_by", &memory.created_by),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            put(key, string(value));
        }
    }
    if !memory.related_to.is_empty() {
        put("related_to", strings(&memory.related_to));
    }
    if let Some(importance) = memory.importance {
        put("importance", Value::Number(importance.into()));
    }
    put("created_at", string(&format_timestamp(&memory.created_at)));
    put("updated_at", string(&format_timestamp(&memory.updated_at)));
    put("version", Value::Number(memory.version.into()));
    for (key, value) in &memory.metadata {
        // A JSON value always converts to YAML; `Null` is the impossible fallback.
        put(key, serde_yaml::to_value(value).unwrap_or(Value::Null));
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{Limits, now};

    fn sample() -> Memory {
        NewMemory::new("# GPU Patterns\n\nUse Metal.\n")
            .collection("knowledge")
            .tags(["gpu", "performance"])
            .context("Research for arcaneum-183")
            .created_by("Claude")
            .importance(0.75)
            .meta("nested", serde_json::json!({"a": [1, 2, {"b": null}], "c": "d"}))
            .meta("number_like", "007")
            .into_memory(&Collection::default(), &Limits::default(), now())
            .unwrap()
    }

    fn reparse(memory: &Memory) -> Memory {
        parse_memory(&to_markdown(memory), &memory.collection, &memory.id, now()).unwrap()
    }

    #[test]
    fn round_trip_is_exact() {
        let memory = sample();
        assert_eq!(reparse(&memory), memory);
        let text = to_markdown(&memory);
        assert!(text.starts_with("---\nid: gpu-patterns\ntitle: GPU Patterns\n"), "{text}");
        assert!(text.ends_with("---\n# GPU Patterns\n\nUse Metal.\n"));
    }

    #[test]
    fn unknown_keys_survive() {
        let text = "---\nid: x\ncustom: {deep: [1, two, 3.5, true]}\nwhen: 2024-01-01\n---\nbody";
        let collection = Collection::default();
        let id = MemoryId::new("x").unwrap();
        let memory = parse_memory(text, &collection, &id, now()).unwrap();
        assert_eq!(memory.metadata["custom"], serde_json::json!({"deep": [1, "two", 3.5, true]}));
        assert_eq!(memory.metadata["when"], serde_json::json!("2024-01-01"));
        let again = reparse(&memory);
        assert_eq!(again.metadata, memory.metadata);
        assert_eq!(again.content, "body");
    }

    #[test]
    fn lenient_values() {
        let text = "---\ntags: a, b\npriority: 1\ncreated_at: 2025-10-30T14:23:45.5\n---\nx";
        let id = MemoryId::new("x").unwrap();
        let memory = parse_memory(text, &Collection::default(), &id, now()).unwrap();
        assert_eq!(memory.tags, ["a", "b"]);
        assert_eq!(memory.priority.as_deref(), Some("1"));
        assert_eq!(format_timestamp(&memory.created_at), "2025-10-30T14:23:45.500Z");
        assert_eq!(memory.updated_at, memory.created_at);
    }

    #[test]
    fn no_frontmatter_is_plain_content() {
        let id = MemoryId::new("notes").unwrap();
        let t = now();
        let memory = parse_memory("# Notes\n\ntext", &Collection::default(), &id, t).unwrap();
        assert_eq!(memory.title, "Notes");
        assert_eq!(memory.created_at, t);
        assert_eq!(memory.content, "# Notes\n\ntext");
    }

    #[test]
    fn errors_name_the_line() {
        let id = MemoryId::new("x").unwrap();
        let c = Collection::default();
        let broken = "---\nid: x\ntags: [a, b\ntitle: t\n---\nbody";
        let err = parse_memory(broken, &c, &id, now()).unwrap_err();
        assert!(err.line.is_some_and(|l| (3..=5).contains(&l)), "{err:?}");
        let unclosed = parse_memory("---\nid: x\nbody", &c, &id, now()).unwrap_err();
        assert_eq!(unclosed.line, Some(1));
        let status = parse_memory("---\nstatus: done\n---\n", &c, &id, now()).unwrap_err();
        assert!(status.message.contains("`status`"), "{status:?}");
        let list = parse_memory("---\n- a\n---\n", &c, &id, now()).unwrap_err();
        assert!(list.message.contains("mapping"));
    }

    #[test]
    fn import_reads_frontmatter_into_new_memory() {
        let new = parse_new_memory("---\nid: imported\ntags: [x]\nfoo: bar\n---\n# T\n").unwrap();
        assert_eq!(new.id.as_deref(), Some("imported"));
        assert_eq!(new.tags, ["x"]);
        assert_eq!(new.metadata["foo"], serde_json::json!("bar"));
        assert_eq!(new.content, "# T\n");
        assert!(parse_new_memory("---\n[\n---\n").is_err());
    }

    #[test]
    fn a_byte_order_mark_before_the_frontmatter_is_not_content() {
        let text = "\u{feff}---\r\ntitle: With BOM\r\ntags: [a]\r\n---\r\nBody text.\r\n";
        let new = parse_new_memory(text).unwrap();
        assert_eq!(
            (new.title.as_deref(), new.tags.as_slice()),
            (Some("With BOM"), &["a".to_owned()][..])
        );
        assert_eq!(new.content, "Body text.\r\n");
        // Without frontmatter the mark is dropped too; elsewhere it is text.
        assert_eq!(parse_new_memory("\u{feff}just text").unwrap().content, "just text");
        assert_eq!(parse_new_memory("a\u{feff}b").unwrap().content, "a\u{feff}b");
    }
}
