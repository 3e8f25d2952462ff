//! Every operation by name: `memcore_call`, and `memcore_operations`, which lists them with
//! the JSON Schemas of their records.

use std::ffi::c_char;

use memcore::api::{self, OPERATIONS};
use serde_json::json;

use crate::boundary::{self, non_null, optional_str, required_str, write_out};
use crate::handle::memcore_t;
use crate::json;
use crate::status::memcore_status;
use crate::string;

/// Runs the operation `operation` (UTF-8, `operation_len` bytes: `"put"`, `"get"`,
/// `"update"`, `"delete"`, `"restore"`, `"search"`, `"list"`, `"collections"`,
/// `"versions"`, `"diff"`, `"hydrate"`, `"stats"`, `"verify"`, `"repair"`, `"reindex"`,
/// `"sync"`, and every operation later releases add) on its **request record** (JSON,
/// `request_len` bytes; NULL with length 0 for `{}`), and writes its **result record**
/// (JSON) to `*out_json`, an owned string for `memcore_string_free()`.
///
/// This is the same call the Python module, the command-line tool (`memcore call`) and the
/// MCP server make, so every field of every record is reachable from C. Each operation's
/// request and result schemas come from `memcore_operations()`. For example, a search with
/// filters: `memcore_call(mc, "search", 6, "{\"text\": \"gpu\", \"tags_any\": [\"perf\"],
/// \"mode\": \"text\", \"limit\": 5}", len, &json)`.
///
/// A field set to `null` counts as left out. Unknown fields are refused, so a typo fails
/// loudly.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_JSON` (not JSON, not an object, an
/// unknown operation, a field that does not fit the schema), `INVALID_ARGUMENT` (a value
/// that breaks a rule), and whatever the operation itself returns (`NOT_FOUND`, `CONFLICT`,
/// `IO`, ...; `CALLBACK` when the summariser of `session_compress` or `session_compose`
/// fails).
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `operation` must point to `operation_len`
/// readable bytes; `request` must be NULL (with `request_len` 0) or point to `request_len`
/// readable bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_call(
    memcore: *const memcore_t,
    operation: *const c_char,
    operation_len: usize,
    request: *const c_char,
    request_len: usize,
    out_json: *mut *mut c_char,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `operation_len` readable bytes at `operation` (or NULL).
        let name = unsafe { required_str("operation", operation, operation_len) }?;
        // SAFETY: the caller passes `request_len` readable bytes at `request` (or NULL).
        let request = unsafe { optional_str("request", request, request_len) }?;
        non_null("out_json", out_json)?;
        let entry = api::operation(name)?;
        let request = match request {
            Some(text) => json::value("request", text, name)?,
            None => json!({}),
        };
        let text = json::to_string(&entry.call(memcore, request)?)?;
        // SAFETY: `out_json` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out_json, string::into_raw(text)) };
        Ok(())
    })
}

/// Every operation `memcore_call()` runs, as JSON written to `*out_json` (an owned string
/// for `memcore_string_free()`): `{"operations": [{"name": "put", "summary": "...",
/// "access": "writes", "request": {JSON Schema}, "result": {JSON Schema}}, ...]}`. Needs no
/// store.
///
/// Errors: `NULL_PARAMETER`.
///
/// # Safety
///
/// `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_operations(out_json: *mut *mut c_char) -> memcore_status {
    boundary::run(|| {
        non_null("out_json", out_json)?;
        let operations: Vec<_> = OPERATIONS.iter().map(|entry| entry.describe()).collect();
        let text = json::to_string(&json!({ "operations": operations }))?;
        // SAFETY: `out_json` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out_json, string::into_raw(text)) };
        Ok(())
    })
}
