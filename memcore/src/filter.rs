//! Seed 000's metadata filters: `key=value` or `key=value1,value2`.
//!
//! A filter matches when the memory has the key and its value is one of the given values;
//! for a list field (`tags`, `related_to`, a list in the extra metadata) when any element is.
//! Known fields are those of [`crate::FIELD_NAMES`] (dates compare as written in the file,
//! e.g. `created_at=2025-10-30T14:23:45Z`); any other key is looked up in the extra
//! frontmatter metadata.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
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

impl Serialize for Filter {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Why a filter as a binding wrote it was refused: a JSON value of the wrong type (a
/// request of the wrong shape), or text that is not a filter (a value the field does not
/// take). Becomes serde's `invalid_type` or `custom` error, so requests tell them apart.
enum Refused {
    /// The value found, and what was expected instead.
    Type(Value, &'static str),
    /// What is wrong with the filter.
    Filter(String),
}

impl Refused {
    /// The deserializer's error for this refusal.
    fn into_error<E: serde::de::Error>(self) -> E {
        match self {
            Self::Type(found, expected) => E::invalid_type(unexpected(&found), &expected),
            Self::Filter(problem) => E::custom(problem),
        }
    }
}

/// `value` as serde names what it found.
fn unexpected(value: &Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (None, None, f) => Unexpected::Float(f.unwrap_or(f64::NAN)),
        },
        Value::String(text) => Unexpected::Str(text),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// What a filter is written as.
const FILTER: &str = "a filter: `key=value` text or {\"key\", \"values\"}";

/// A filter written as a record writes it: `key=value` text, or `{"key": ..., "values":
/// value | [values]}`.
fn filter_of(value: Value) -> std::result::Result<Filter, Refused> {
    match value {
        Value::String(expr) => expr.parse().map_err(|e: Error| Refused::Filter(e.to_string())),
        Value::Object(mut parts) => {
            let key = parts.remove("key");
            let values = parts.remove("values");
            match (key, values, parts.is_empty()) {
                (Some(Value::String(key)), Some(values), true) => new_filter(key, values),
                _ => Err(Refused::Filter(
                    "a filter object has exactly `key` (a string) and `values`".to_owned(),
                )),
            }
        }
        other => Err(Refused::Type(other, FILTER)),
    }
}

/// The filter `key` = `values` (one text or a list of them).
fn new_filter(key: String, values: Value) -> std::result::Result<Filter, Refused> {
    let text = |value: Value| match value {
        Value::String(text) => Ok(text),
        other => Err(Refused::Type(other, "a filter value (text)")),
    };
    let values = match values {
        Value::Array(items) => {
            items.into_iter().map(text).collect::<std::result::Result<_, _>>()?
        }
        value => vec![text(value)?],
    };
    Filter::new(key, values).map_err(|e| Refused::Filter(e.to_string()))
}

impl<'de> Deserialize<'de> for Filter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        filter_of(Value::deserialize(deserializer)?).map_err(Refused::into_error)
    }
}

impl JsonSchema for Filter {
    fn schema_name() -> Cow<'static, str> {
        "Filter".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "`key=value` or `key=value1,value2` (seed 000's filter syntax), or \
                            {\"key\": ..., \"values\": [...]}; `key` is a memory field or an \
                            extra frontmatter key.",
            "anyOf": [
                { "type": "string", "examples": ["tags=api,auth", "priority=high"] },
                {
                    "type": "object",
                    "properties": {
                        "key": { "type": "string" },
                        "values": {
                            "anyOf": [
                                { "type": "string" },
                                { "type": "array", "items": { "type": "string" } }
                            ]
                        }
                    },
                    "required": ["key", "values"],
                    "additionalProperties": false
                }
            ]
        })
    }
}

/// The filters of a request, as any binding may write them: one filter, a list of filters,
/// or a map `{key: value | [values]}`. Use with `#[serde(deserialize_with)]` and
/// `#[schemars(schema_with = "crate::filter::list_schema")]`.
pub(crate) fn deserialize_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Vec<Filter>, D::Error> {
    let filters = match Value::deserialize(deserializer)? {
        Value::Array(items) => items.into_iter().map(filter_of).collect(),
        Value::Object(map) if !map.contains_key("key") => {
            map.into_iter().map(|(key, values)| new_filter(key, values)).collect()
        }
        one @ (Value::String(_) | Value::Object(_)) => filter_of(one).map(|f| vec![f]),
        other => Err(Refused::Type(
            other,
            "filters: `key=value` text, a list of filters or an object of key to values",
        )),
    };
    filters.map_err(Refused::into_error)
}

/// The schema of [`deserialize_list`]'s input, for `#[schemars(schema_with = ...)]`.
pub(crate) fn list_schema(generator: &mut SchemaGenerator) -> Schema {
    let filter = generator.subschema_for::<Filter>();
    json_schema!({
        "description": "Filters that must all match: one filter, a list of them, or a map \
                        `{key: value | [values]}`.",
        "anyOf": [
            filter,
            { "type": "array", "items": filter },
            {
                "type": "object",
                "additionalProperties": {
                    "anyOf": [
                        { "type": "string" },
                        { "type": "array", "items": { "type": "string" } }
                    ]
                }
            }
        ]
    })
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
    fn records_write_filters_in_every_form() {
        #[derive(Deserialize)]
        struct Request {
            #[serde(deserialize_with = "deserialize_list")]
            filters: Vec<Filter>,
        }
        let parse = |json: &str| {
            serde_json::from_str::<Request>(json)
                .map(|r| r.filters.iter().map(ToString::to_string).collect::<Vec<_>>())
        };
        assert_eq!(parse(r#"{"filters": "tags=a,b"}"#).unwrap(), ["tags=a,b"]);
        assert_eq!(
            parse(r#"{"filters": ["tags=a", {"key": "team", "values": "core"}]}"#).unwrap(),
            ["tags=a", "team=core"]
        );
        assert_eq!(
            parse(r#"{"filters": {"tags": ["a", "b"], "team": "core"}}"#).unwrap(),
            ["tags=a,b", "team=core"]
        );
        assert!(parse(r#"{"filters": "no-equals"}"#).is_err());
        assert!(parse(r#"{"filters": [1]}"#).is_err());
        assert_eq!(
            serde_json::to_string(&"tags=a".parse::<Filter>().unwrap()).unwrap(),
            "\"tags=a\""
        );
    }

    #[test]
    fn rejects_malformed() {
        assert!("tags".parse::<Filter>().is_err());
        assert!("=x".parse::<Filter>().is_err());
        assert_eq!("tags = a, b".parse::<Filter>().unwrap().to_string(), "tags=a,b");
    }
}
