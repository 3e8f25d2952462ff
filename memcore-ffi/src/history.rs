//! Version history: `memcore_versions` and `memcore_get_version`.

use std::ffi::c_char;

use crate::boundary::required_str;
use crate::handle::{memcore_t, on_memory};
use crate::json;
use crate::status::memcore_status;

/// The history of the memory at `reference` (`"id"` or `"collection/id"`), oldest first and
/// the current version last, as a JSON array of **version records** written to
/// `*out_json`, an owned string for `memcore_string_free()`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT`, `NOT_FOUND`, `CONFLICT`,
/// `CORRUPTED`, `IO`, `UNSUPPORTED` (the store keeps no history: `versioning: off`, or a
/// store inside a git work tree).
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
/// readable bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_versions(
    memcore: *const memcore_t,
    reference: *const c_char,
    reference_len: usize,
    out_json: *mut *mut c_char,
) -> memcore_status {
    // SAFETY: the export's contract is `on_memory`'s.
    unsafe {
        on_memory(memcore, (reference, reference_len), ("out_json", out_json), |memcore, r| {
            json::to_string(&memcore.versions(r)?)
        })
    }
}

/// The memory at `reference` as it was at `rev` (a version record's `rev`, UTF-8, `rev_len`
/// bytes), as a **memory record** (JSON) written to `*out_json`, an owned string for
/// `memcore_string_free()`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (malformed `rev`),
/// `NOT_FOUND` (no such version), `CONFLICT`, `CORRUPTED`, `IO`, `UNSUPPORTED`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `reference` and `rev` must point to their
/// lengths in readable bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_get_version(
    memcore: *const memcore_t,
    reference: *const c_char,
    reference_len: usize,
    rev: *const c_char,
    rev_len: usize,
    out_json: *mut *mut c_char,
) -> memcore_status {
    // SAFETY: the export's contract is `on_memory`'s, and `rev_len` readable bytes at `rev`
    // (or NULL).
    unsafe {
        on_memory(memcore, (reference, reference_len), ("out_json", out_json), |memcore, r| {
            let rev = required_str("rev", rev, rev_len)?;
            json::memory(memcore.get_version(r, rev)?)
        })
    }
}
