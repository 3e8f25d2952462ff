//! Every operation of [`Memcore`] as data: a request record in, a result record out, by name.
//!
//! This is what the bindings call, so that an operation is written once and reached from
//! everywhere: the C ABI (`memcore_call` with JSON), Python (keyword arguments mapped onto the
//! request record), the CLI (`memcore call OPERATION JSON`) and the MCP server. Each request
//! is deserialised and checked in one place ([`parse_request`]): an unknown or missing field,
//! or a value of the wrong type, is an [`Error::Request`] naming the field; a value that a
//! field or the operation refuses is an [`Error::Validation`].
//!
//! ```
//! use memcore::Memcore;
//! use serde_json::json;
//!
//! # let dir = tempfile::tempdir()?;
//! let memcore = Memcore::open(dir.path())?;
//! memcore.call("put", json!({"memories": [{"content": "Prefer Metal.", "id": "gpu"}]}))?;
//! let found = memcore.call("search", json!({"text": "metal", "mode": "text"}))?;
//! assert_eq!(found["hits"][0]["memory"]["ref"], "memory/gpu");
//!
//! let err = memcore.call("search", json!({"text": "metal", "limmit": 3})).unwrap_err();
//! assert!(err.to_string().contains("unknown field `limmit`"), "{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! To add an operation: define its request record (`Deserialize + JsonSchema`, with
//! `deny_unknown_fields`) and its result record (`Serialize + JsonSchema`, a struct: results
//! are JSON objects, never bare lists), declare it with `operation!` in `operations.rs` with
//! its [`Access`] (`reads` or `writes`), and list it in [`OPERATIONS`]. The parity suite
//! (`tests/parity/`) then fails until a case covers every field of the request.

mod operations;
mod records;

use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::Value;

pub use self::operations::OPERATIONS;
pub use self::records::{
    CollectionsResult, DiffRequest, DiffResult, HydrateRequest, MemoryRecord, NoArguments,
    NotesMergeRequest, OpenedResult, PutRequest, PutResult, RefRequest, UpdateRequest,
    VersionRequest, VersionsResult,
};
use crate::{Error, Memcore, Memory, Result};

/// One operation: its name, its request and result records, and how it runs.
pub trait Operation {
    /// The operation's name, as the bindings call it (`put`, `search`, ...).
    const NAME: &'static str;
    /// One line saying what it does, for tool listings (MCP) and help.
    const SUMMARY: &'static str;
    /// Whether it changes the store (MCP's read-only hint).
    const ACCESS: Access;
    /// What it takes.
    type Request: DeserializeOwned + JsonSchema + 'static;
    /// What it returns.
    type Result: Serialize + JsonSchema;
    /// Runs it.
    fn run(memcore: &Memcore, request: Self::Request) -> Result<Self::Result>;
}

/// Whether an operation changes the store.
///
/// Upkeep an operation does on the way does not count: `search` [`reads`](Access::Reads)
/// even when it catches up a stale index first. Operations whose purpose is to change
/// something, the indexes included (`repair`, `reindex`, `sync`), write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Access {
    /// Only reads: calling it again gives the same answer and changes no memory.
    Reads,
    /// Changes memories, their metadata, the trash, the session registry or the indexes.
    Writes,
}

/// An operation as the registry keeps it: its name and summary, a type-erased call, and the
/// JSON Schemas of its records.
#[derive(Clone, Copy)]
pub struct OperationEntry {
    /// The operation's name.
    pub name: &'static str,
    /// What it does, in one line.
    pub summary: &'static str,
    /// Whether it changes the store.
    pub access: Access,
    call: fn(&Memcore, Value) -> Result<Value>,
    request_schema: fn() -> Schema,
    result_schema: fn() -> Schema,
}

impl std::fmt::Debug for OperationEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OperationEntry").field("name", &self.name).finish_non_exhaustive()
    }
}

impl OperationEntry {
    /// The entry of the operation `O`.
    pub const fn of<O: Operation>() -> Self {
        Self {
            name: O::NAME,
            summary: O::SUMMARY,
            access: O::ACCESS,
            call: call_erased::<O>,
            request_schema: schema_of::<O::Request>,
            result_schema: result_schema_of::<O::Result>,
        }
    }

    /// The JSON Schema of the request record.
    pub fn request_schema(&self) -> Schema {
        (self.request_schema)()
    }

    /// The JSON Schema of the result record.
    pub fn result_schema(&self) -> Schema {
        (self.result_schema)()
    }

    /// The operation as every binding lists it: `{"name", "summary", "access", "request",
    /// "result"}`, the last two its records' JSON Schemas.
    ///
    /// ```
    /// let put = memcore::api::operation("put")?.describe();
    /// assert_eq!(put["name"], "put");
    /// assert_eq!(put["access"], "writes");
    /// assert!(put["request"]["properties"]["memories"].is_object());
    /// # Ok::<(), memcore::Error>(())
    /// ```
    pub fn describe(&self) -> Value {
        serde_json::json!({
            "name": self.name,
            "summary": self.summary,
            "access": self.access,
            "request": self.request_schema(),
            "result": self.result_schema(),
        })
    }

    /// Runs the operation on a request given as JSON, returning its result as JSON.
    pub fn call(&self, memcore: &Memcore, request: Value) -> Result<Value> {
        (self.call)(memcore, request)
    }
}

/// The JSON Schema of `T` as a request: what deserialising accepts (fields with defaults
/// are optional).
fn schema_of<T: JsonSchema>() -> Schema {
    schemars::schema_for!(T)
}

/// The JSON Schema of `T` as a result: what serialising writes (a field left out when empty
/// is optional, one always written is required), which is what clients check results
/// against.
fn result_schema_of<T: JsonSchema>() -> Schema {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// Deserialises, runs and serialises one operation.
fn call_erased<O: Operation>(memcore: &Memcore, request: Value) -> Result<Value> {
    let request = parse_request::<O::Request>(O::NAME, request)?;
    to_value(&O::run(memcore, request)?)
}

/// The operation called `name`.
pub fn operation(name: &str) -> Result<&'static OperationEntry> {
    OPERATIONS.iter().find(|entry| entry.name == name).ok_or_else(|| {
        let names: Vec<&str> = OPERATIONS.iter().map(|entry| entry.name).collect();
        Error::request(
            format!("unknown operation {name:?}"),
            format!("call one of: {}", names.join(", ")),
        )
    })
}

impl Memcore {
    /// Runs the operation `name` on a request record given as JSON and returns its result
    /// record as JSON: the one entry point every binding goes through. See [`crate::api`].
    pub fn call(&self, name: &str, request: Value) -> Result<Value> {
        operation(name)?.call(self, request)
    }
}

/// Reads the request record of `operation` from JSON, the one place requests are checked
/// against their schema. A request must be a JSON object; a field of a record set to `null`
/// counts as left out, at any depth (a memory in `put`'s list, the `change` of `update`), so
/// every binding can pass "no value" the same way. A `null` inside free-form data (a
/// metadata value, which `update` takes as "remove this key") is kept.
///
/// # Errors
///
/// [`Error::Request`] naming the field that does not fit the record's shape: an unknown or
/// missing field, a value of the wrong type. [`Error::Validation`], also naming the field, for
/// a value of the right type its field refuses (an unknown status, a time that is not RFC
/// 3339, a malformed filter or reference, a negative count), as for the rules the operation
/// checks once the record is read (a limit out of range, a bad id).
pub fn parse_request<R: DeserializeOwned + JsonSchema + 'static>(
    operation: &str,
    request: Value,
) -> Result<R> {
    let mut fields = match request {
        Value::Object(fields) => fields,
        other => {
            return Err(Error::request(
                format!("the `{operation}` request is {}, not an object", kind_of(&other)),
                schema_hint(operation),
            ));
        }
    };
    let mut request = Value::Object(std::mem::take(&mut fields));
    let schema = cached_schema::<R>();
    let defs = schema.as_value().get("$defs").and_then(Value::as_object);
    drop_record_nulls(&mut request, schema.as_value(), defs);
    serde_path_to_error::deserialize(&request).map_err(|e| {
        let at = e.path().to_string();
        let place = if at == "." { String::new() } else { format!(" at `{at}`") };
        let problem = e.inner().to_string();
        if let Some(text) = unreadable_time(&request, e.path(), &problem) {
            return Error::validation(
                format!("invalid `{operation}` request{place}: {text:?} is not a time ({problem})"),
                "write times as RFC 3339 text with a UTC offset, e.g. 2023-05-08T13:56:00Z or \
                 2023-05-08T13:56:00+02:00",
            );
        }
        let message = format!("invalid `{operation}` request{place}: {problem}");
        if is_shape_problem(&problem) {
            Error::request(message, schema_hint(operation))
        } else {
            Error::validation(message, schema_hint(operation))
        }
    })
}

/// The text at `path` in `request` when `problem` is chrono's complaint about a time it could
/// not read (so the message can show the text and say what a time looks like).
fn unreadable_time<'a>(
    request: &'a Value,
    path: &serde_path_to_error::Path,
    problem: &str,
) -> Option<&'a str> {
    const TIME_PROBLEMS: [&str; 7] = [
        "premature end of input",
        "input contains invalid characters",
        "trailing input",
        "input is out of range",
        "input is not enough for unique date and time",
        "no possible date and time matching input",
        "bad or unsupported format string",
    ];
    if !TIME_PROBLEMS.contains(&problem) {
        return None;
    }
    let mut value = request;
    for segment in path {
        value = match segment {
            serde_path_to_error::Segment::Seq { index } => value.get(index)?,
            serde_path_to_error::Segment::Map { key } => value.get(key)?,
            _ => return None,
        };
    }
    value.as_str()
}

/// Whether serde's `problem` is with the request's shape (a field unknown, missing, of the
/// wrong type or length), which is [`Error::Request`], rather than with a value in a field of
/// the right type (an unknown status, a malformed time, filter or reference, a number out of
/// range), which is [`Error::Validation`] as when a rule is broken later.
fn is_shape_problem(problem: &str) -> bool {
    ["unknown field", "missing field", "invalid type", "invalid length", "duplicate field"]
        .iter()
        .any(|prefix| problem.starts_with(prefix))
}

/// The JSON Schema of `R`, made once per process.
fn cached_schema<R: JsonSchema + 'static>() -> std::sync::Arc<Schema> {
    use std::any::TypeId;
    use std::collections::HashMap;
    use std::sync::{Arc, OnceLock};
    static SCHEMAS: OnceLock<parking_lot::Mutex<HashMap<TypeId, Arc<Schema>>>> = OnceLock::new();
    let mut schemas = SCHEMAS.get_or_init(Default::default).lock();
    Arc::clone(schemas.entry(TypeId::of::<R>()).or_insert_with(|| Arc::new(schema_of::<R>())))
}

/// Removes the `null` fields of every record in `value` (objects whose `schema` lists
/// properties), following the schema into nested records and lists of them; free-form
/// objects (maps) and values the schema allows several shapes for are left as they are.
fn drop_record_nulls(
    value: &mut Value,
    schema: &Value,
    defs: Option<&serde_json::Map<String, Value>>,
) {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap_or_default();
            match defs.and_then(|defs| defs.get(name)) {
                Some(target) => target,
                None => return,
            }
        }
        None => schema,
    };
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let mut real = branches.iter().filter(|b| b.get("type") != Some(&Value::from("null")));
        if let (Some(only), None) = (real.next(), real.next()) {
            drop_record_nulls(value, only, defs);
        }
        return;
    }
    match value {
        Value::Object(fields) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            fields.retain(|_, field| !field.is_null());
            for (name, field) in fields.iter_mut() {
                if let Some(field_schema) = properties.get(name) {
                    drop_record_nulls(field, field_schema, defs);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                items.iter_mut().for_each(|item| drop_record_nulls(item, item_schema, defs));
            }
        }
        _ => {}
    }
}

/// Where a request's schema is described.
fn schema_hint(operation: &str) -> String {
    format!(
        "check the fields of the `{operation}` request: `memcore operations {operation}` prints \
         its JSON Schema"
    )
}

/// What kind of JSON value `value` is, for messages.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A result as JSON; failure here is a bug.
fn to_value<T: Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| {
        Error::index(
            format!("a result could not be serialised: {e}"),
            Some(Box::new(e)),
            "report this as a bug",
        )
    })
}

/// Serialises a memory as its record, with its `ref` (`#[serde(serialize_with = ...)]`).
pub(crate) fn serialize_memory<S: Serializer>(memory: &Memory, s: S) -> Result<S::Ok, S::Error> {
    MemoryRecord::of(memory.clone()).serialize(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_operation_has_a_unique_name_and_object_schemas() {
        let mut names: Vec<&str> = OPERATIONS.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OPERATIONS.len());
        for entry in OPERATIONS {
            let schema = entry.request_schema();
            let schema = schema.as_object().expect("object schema");
            assert_eq!(schema.get("type"), Some(&json!("object")), "{}", entry.name);
            // A record, never a bare list: MCP's structured content and every binding's
            // result are objects, so a result can gain fields without breaking callers.
            let result = entry.result_schema();
            assert_eq!(result.get("type"), Some(&json!("object")), "{} result", entry.name);
            assert!(!entry.summary.is_empty());
        }
    }

    #[test]
    fn nulls_in_records_are_left_out_at_any_depth_but_kept_in_maps() {
        let put: PutRequest = parse_request(
            "put",
            json!({"memories": [{"content": "x", "tags": null, "metadata": {"k": null}}],
                   "mode": null}),
        )
        .expect("nulls in records are fields left out");
        assert!(put.memories[0].tags.is_empty());
        assert!(put.memories[0].metadata["k"].is_null(), "a metadata value is data");
        let update: UpdateRequest = parse_request(
            "update",
            json!({"ref": "a", "change": {"merge_tags": null, "metadata": {"gone": null}}}),
        )
        .expect("nulls in the change are fields left out");
        assert!(!update.change.merge_tags);
        assert!(update.change.metadata["gone"].is_null(), "null removes a metadata key");
    }

    #[test]
    fn requests_are_checked_in_one_place() {
        #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct R {
            text: String,
            #[serde(default)]
            limit: Option<u32>,
        }
        let ok: R = parse_request("t", json!({"text": "x", "limit": null})).expect("nulls dropped");
        assert_eq!(ok.limit, None);
        let err = parse_request::<R>("t", json!({"text": "x", "limt": 3})).unwrap_err();
        assert!(matches!(err, Error::Request { .. }));
        assert!(err.to_string().contains("unknown field `limt`"), "{err}");
        let err = parse_request::<R>("t", json!({"text": 3})).unwrap_err();
        assert!(err.to_string().contains("at `text`"), "{err}");
        assert!(matches!(err, Error::Request { .. }), "a wrong type is the request's shape");
        let err = parse_request::<R>("t", json!({"text": "x", "limit": -1})).unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "a value out of range: {err}");
        let err =
            parse_request::<crate::Query>("search", json!({"text": "x", "statuses": ["done"]}))
                .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "an unknown status: {err}");
        assert!(err.to_string().contains("at `statuses[0]`"), "{err}");
        let list = |filters: Value| {
            parse_request::<crate::ListOptions>("list", json!({ "filters": filters })).unwrap_err()
        };
        for wrong_type in [json!(5), json!([1]), json!({"tags": 2}), json!({"tags": [null]})] {
            let err = list(wrong_type.clone());
            assert!(matches!(err, Error::Request { .. }), "{wrong_type}: {err}");
            assert!(err.to_string().contains("invalid type"), "{err}");
        }
        for not_a_filter in [json!("tags"), json!(["a=b", "=x"]), json!({"tags": []})] {
            let err = list(not_a_filter.clone());
            assert!(matches!(err, Error::Validation { .. }), "{not_a_filter}: {err}");
        }
        let err = parse_request::<R>("t", json!([1])).unwrap_err();
        assert!(err.to_string().contains("an array, not an object"), "{err}");
        assert!(err.recovery().contains("memcore operations t"));
        let err = parse_request::<R>("t", Value::Null).unwrap_err();
        assert!(err.to_string().contains("null, not an object"), "{err}");
        let err = parse_request::<R>("t", json!({})).unwrap_err();
        assert!(err.to_string().contains("missing field `text`"), "{err}");
    }

    #[test]
    fn a_time_that_cannot_be_read_is_shown_with_what_a_time_looks_like() {
        for text in ["2023-05-08 13:56", "2023-05-08", "8 May 2023", "2023-05-08T13:56:00"] {
            let request =
                json!({"memories": [{"content": "x"}, {"content": "y", "created_at": text}]});
            let err = parse_request::<PutRequest>("put", request).unwrap_err();
            assert!(matches!(err, Error::Validation { .. }), "{err}");
            let message = err.to_string();
            assert!(message.contains("at `memories[1].created_at`"), "{message}");
            assert!(message.contains(&format!("{text:?} is not a time")), "{message}");
            assert!(err.recovery().contains("2023-05-08T13:56:00Z"), "{err:?}");
        }
        let err = parse_request::<crate::Query>("search", json!({"text": "x", "created_after": 5}))
            .unwrap_err();
        assert!(matches!(err, Error::Request { .. }), "a number is the wrong type: {err}");
    }
}
