//! Listing the store: `memcore_list` and `memcore_collections`.

use std::ffi::c_char;

use crate::boundary::{self, non_null, optional_str, write_out};
use crate::handle::memcore_t;
use memcore::ListOptions;

use crate::json;
use crate::status::memcore_status;
use crate::string;

/// Lists memories, sorted by collection then id, as a **list result** (JSON) written to
/// `*out_json`, an owned string for `memcore_string_free()`.
///
/// `options` is a **list options** record (JSON, `options_len` bytes; see the schema at
/// the top of this header), or NULL for every memory of every collection. A memory file
/// that cannot be read does not fail the call: it is reported in the result's `skipped`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_JSON`, `INVALID_ARGUMENT` (bad
/// collection name or filter), `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `options` must be NULL (with `options_len`
/// 0) or point to `options_len` readable bytes; `out_json` must point to writable storage
/// for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_list(
    memcore: *const memcore_t,
    options: *const c_char,
    options_len: usize,
    out_json: *mut *mut c_char,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `options_len` readable bytes at `options` (or NULL).
        let options = unsafe { optional_str("options", options, options_len) }?;
        non_null("out_json", out_json)?;
        let options: ListOptions = match options {
            Some(text) => json::record("options", text, "list")?,
            None => ListOptions::new(),
        };
        let text = json::to_string(&memcore.list(&options)?)?;
        // SAFETY: `out_json` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out_json, string::into_raw(text)) };
        Ok(())
    })
}

/// The store's collections, sorted by name, as a JSON array of strings (for example
/// `["knowledge","memory"]`) written to `*out_json`, an owned string for
/// `memcore_string_free()`.
///
/// Errors: `NULL_PARAMETER`, `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `out_json` must point to writable storage for
/// one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_collections(
    memcore: *const memcore_t,
    out_json: *mut *mut c_char,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        non_null("out_json", out_json)?;
        let text = json::to_string(&memcore.collections()?)?;
        // SAFETY: `out_json` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out_json, string::into_raw(text)) };
        Ok(())
    })
}
