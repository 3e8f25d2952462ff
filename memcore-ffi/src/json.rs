//! JSON in and out of the C API. Requests are the library's own records
//! ([`memcore::api`]): text is parsed here (a syntax error is `INVALID_JSON` with its line and
//! column) and checked against the record by the library, in the one place every binding
//! shares: a request of the wrong shape (unknown or missing field, wrong JSON type) is
//! `INVALID_JSON` too, a value the field does not accept (`"status": "done"`, a date that is
//! not a date) is `INVALID_ARGUMENT`; both name the field. Results are the records' serde form.

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use memcore::Memory;
use memcore::api::{MemoryRecord, parse_request};

use crate::boundary::{Failure, FfiResult};
use crate::status::memcore_status;

/// The JSON text of argument `param`, for the operation `operation`.
pub(crate) fn value(param: &str, text: &str, operation: &str) -> FfiResult<Value> {
    serde_json::from_str(text).map_err(|e| {
        Failure::new(
            memcore_status::InvalidJson,
            format!("`{param}` is not JSON: {e}"),
            format!(
                "pass the `{operation}` request as one JSON object (`memcore_operations()` \
                 lists every request's schema)"
            ),
        )
    })
}

/// The request record of `operation` in the JSON text of argument `param`.
pub(crate) fn record<T: DeserializeOwned + JsonSchema + 'static>(
    param: &str,
    text: &str,
    operation: &str,
) -> FfiResult<T> {
    Ok(parse_request(operation, value(param, text, operation)?)?)
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

/// The memory record: `{"ref", "id", "collection", ...}`.
pub(crate) fn memory(memory: Memory) -> FfiResult<String> {
    to_string(&MemoryRecord::of(memory))
}

#[cfg(test)]
mod tests {
    use super::*;
    use memcore::{ListOptions, MemoryUpdate, NewMemory, Status};

    #[test]
    fn records_reject_unknown_fields_wrong_types_and_bad_syntax() {
        let err =
            record::<NewMemory>("record", r#"{"content": "x", "tag": []}"#, "put").unwrap_err();
        assert_eq!(err.status, memcore_status::InvalidJson);
        assert!(err.message.contains("unknown field `tag`"), "{}", err.message);
        let err = record::<NewMemory>("record", r#"{"title": "x"}"#, "put").unwrap_err();
        assert!(err.message.contains("missing field `content`"), "{}", err.message);
        let err = record::<MemoryUpdate>("change", r#"{"tags": "a"}"#, "update").unwrap_err();
        assert_eq!(err.status, memcore_status::InvalidJson);
        assert!(err.message.contains("at `tags`"), "{}", err.message);
        let err = record::<ListOptions>("options", "[", "list").unwrap_err();
        assert!(err.message.contains("is not JSON"), "{}", err.message);
        let err = record::<ListOptions>("options", r#"["c", null, 0, 1]"#, "list").unwrap_err();
        assert!(err.message.contains("an array, not an object"), "{}", err.message);
    }

    #[test]
    fn put_record_reaches_every_field() {
        let new: NewMemory = record(
            "record",
            r#"{"content": "c", "id": "i", "collection": "k", "title": "t", "summary": "s",
                "type": "fact", "status": "resolved", "tags": ["a"], "category": "g",
                "context": "x", "related_to": ["r"], "project": "p", "priority": "high",
                "created_by": "me", "importance": 0.5, "created_at": "2025-10-30T14:23:45Z",
                "metadata": {"k": 1}}"#,
            "put",
        )
        .unwrap();
        assert_eq!(new.status, Some(Status::Resolved));
        assert_eq!(new.kind.as_deref(), Some("fact"));
        assert_eq!(
            new.created_at.map(|t| t.to_rfc3339()).as_deref(),
            Some("2025-10-30T14:23:45+00:00")
        );
        assert_eq!(new.metadata["k"], 1);

        let err = record::<NewMemory>("r", r#"{"content": "c", "status": "done"}"#, "put");
        assert_eq!(err.unwrap_err().status, memcore_status::InvalidArgument);
        let err = record::<NewMemory>("r", r#"{"content": "c", "created_at": "monday"}"#, "put");
        let err = err.unwrap_err();
        assert_eq!(err.status, memcore_status::InvalidArgument);
        assert!(err.message.contains("at `created_at`"), "{}", err.message);
    }
}
